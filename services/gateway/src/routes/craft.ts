import { Router } from 'express';
import { CraftMessageRequestSchema, type CraftEvent } from '@switchyard/contracts';
import type { CraftSession } from '../commands/craft-session';
import { principalOf, requireRole } from '../http/auth';
import { parseBody } from '../http/validate';
import { startHeartbeat } from '../sse/event-stream';

/**
 * Conversational crafting (decision 0056): `POST /agents/craft` (member)
 * queues the message as the next turn of the crafting conversation (a `craft`
 * run of the built-in crafting agent) and answers `text/event-stream`:
 * `started` (the run and the conversation), then one event per patch,
 * refusal, try and remark as the run's transcript records them, ending with
 * `done` or `error`. Refusals found before the answer starts are plain 4xx.
 */
export function craftRoutes(deps: { craftSession: Pick<CraftSession, 'check' | 'start' | 'follow'>; heartbeatMs: number }): Router {
  const router = Router({ mergeParams: true });

  router.post('/agents/craft', requireRole('member'), async (req, res) => {
    const body = parseBody(CraftMessageRequestSchema, req);
    const principal = principalOf(res);
    await deps.craftSession.check(principal, body);
    const started = await deps.craftSession.start({ principal, correlationId: String(res.locals.requestId) }, body);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    res.flushHeaders();
    // The person left (closed the page): stop following; the turn goes on and stays in the conversation's transcript.
    const gone = new AbortController();
    // A model may think for a while between events: comments keep proxies from closing the stream as idle.
    const stopHeartbeat = startHeartbeat(res, deps.heartbeatMs);
    res.on('close', () => {
      stopHeartbeat();
      gone.abort();
    });
    const emit = (event: CraftEvent) => {
      if (!res.writableEnded) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    };
    emit(started);
    try {
      await deps.craftSession.follow(principal, started.runId, emit, gone.signal);
    } catch (error) {
      emit({ type: 'error', code: 'INTERNAL', message: 'following the crafting run failed' });
      throw error;
    } finally {
      stopHeartbeat();
      res.end();
    }
  });

  return router;
}
