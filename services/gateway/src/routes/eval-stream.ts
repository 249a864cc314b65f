import { Router } from 'express';
import { EvalIdSchema, EvalStreamCursorSchema } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import type { EvalProgress } from '../commands/eval-progress';
import { credentialOfRequest, principalOf, requireRole } from '../http/auth';
import { parseInput } from '../http/validate';
import type { CredentialWatch } from '../sse/credential-watch';
import { serveEventStream } from '../sse/event-stream';
import { EvalStreamSession } from '../sse/eval-session';

/** How often an open eval stream reads its trials: a trial's end is seen within this. */
export const EVAL_STREAM_POLL_MS = 1_000;

/** What the eval stream needs. */
export interface EvalStreamRoutesDeps {
  evalProgress: EvalProgress;
  /** Ends an open stream once its token stops working (revoked, expired). */
  watch: CredentialWatch;
  heartbeatMs: number;
  log: Logger;
  /** @defaultValue EVAL_STREAM_POLL_MS */
  pollMs?: number;
}

/**
 * `GET /evals/{id}/stream` (viewer; decision 0058, "Streaming"): Server-Sent
 * Events of an eval's trials as they end (`event: trial`), then its settled
 * result (`event: verdict`), and the stream ends. `Last-Event-ID` (which
 * trials the client has) resumes it. Authenticated like every workspace
 * route (bearer token or the UI's session cookie), and like the other
 * streams it ends once its token stops working.
 */
export function evalStreamRoutes(deps: EvalStreamRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.get('/evals/:id/stream', requireRole('viewer'), async (req, res) => {
    const id = parseInput(EvalIdSchema, req.params.id, 'eval id');
    const header = req.headers['last-event-id'];
    const lastEventId = header === undefined ? undefined : parseInput(EvalStreamCursorSchema, header, 'Last-Event-ID');
    const principal = principalOf(res);
    const ctx = { principal, correlationId: String(res.locals.requestId) };
    // Refusals (no such eval, a foreign cursor) answer before the stream opens.
    const cursor = await deps.evalProgress.open(ctx, id, lastEventId);
    const session = new EvalStreamSession({ res, next: () => deps.evalProgress.next(ctx, cursor), pollMs: deps.pollMs ?? EVAL_STREAM_POLL_MS, heartbeatMs: deps.heartbeatMs, log: deps.log });
    serveEventStream(res, session, { preamble: 'retry: 2000\n\n', watch: deps.watch, credential: credentialOfRequest(res), tokenId: principal.tokenId });
  });

  return router;
}
