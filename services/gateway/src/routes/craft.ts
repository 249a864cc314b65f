import { Router } from 'express';
import { CraftMessageRequestSchema, type CraftEvent } from '@switchyard/contracts';
import type { CraftAgent } from '../commands/craft-agent';
import { principalOf, requireRole } from '../http/auth';
import { parseBody } from '../http/validate';

/**
 * Conversational crafting (decision 0056): `POST /agents/craft` (member) runs
 * the crafting agent on one message and answers `text/event-stream`, one
 * event per patch, refusal, try and remark as they happen, ending with
 * `done` or `error`. Refusals found before the answer starts are plain 4xx.
 */
export function craftRoutes(deps: { craftAgent: Pick<CraftAgent, 'check' | 'message'>; heartbeatMs: number }): Router {
  const router = Router({ mergeParams: true });

  router.post('/agents/craft', requireRole('member'), async (req, res) => {
    const body = parseBody(CraftMessageRequestSchema, req);
    const principal = principalOf(res);
    await deps.craftAgent.check(principal, body);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    res.flushHeaders();
    // The person left (closed the page, sent again): stop calling the model for them.
    const gone = new AbortController();
    // A model may think for a while between events: comments keep proxies from closing the stream as idle.
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), deps.heartbeatMs);
    res.on('close', () => {
      clearInterval(heartbeat);
      gone.abort();
    });
    const emit = (event: CraftEvent) => {
      if (!res.writableEnded) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    };
    try {
      await deps.craftAgent.message({ principal, correlationId: String(res.locals.requestId) }, body, emit, gone.signal);
    } catch (error) {
      emit({ type: 'error', code: 'INTERNAL', message: 'crafting failed' });
      throw error;
    } finally {
      clearInterval(heartbeat);
      res.end();
    }
  });

  return router;
}
