import { AppError, ErrorCode, type EvalRun, type EvalTrialEvent } from '@switchyard/contracts';
import { failedExpectations } from '@switchyard/evals';
import type { EvalSuiteRecord, EvalStore } from '../eval-ports';
import type { EvalRuns } from './eval-runs';
import type { TryCommandContext } from './try-agent';

/** What the stream of an eval's progress needs. */
export interface EvalProgressDeps {
  evals: Pick<EvalStore, 'getRun' | 'getSuite' | 'trialsOf'>;
  evalRuns: Pick<EvalRuns, 'read'>;
}

/** Where a stream stands: the eval's shape, and which trials it has sent (one bit a trial, in slot order). */
export interface EvalProgressCursor {
  evalId: string;
  suite: EvalSuiteRecord;
  targets: number;
  trials: number;
  sent: Uint8Array;
}

/** What a poll found: trials newly ended (the cursor after them), and the settled eval once there is one. */
export interface EvalProgressStep {
  trials: EvalTrialEvent[];
  /** The cursor once these trials are sent (the SSE id of the last); null when there are none. */
  cursorId: string | null;
  verdict: EvalRun | null;
}

/**
 * The progress of an eval run as a stream reads it (decision 0058,
 * "Streaming"): each trial once its run ended, checked against its case's
 * expectations, then the settled eval. PostgreSQL is the only source, so a
 * cursor (which trials the client has) resumes on any replica; settling is
 * the read command's, so a stream settles an eval like any other reader.
 */
export class EvalProgress {
  constructor(private readonly deps: EvalProgressDeps) {}

  /** The cursor of a new stream: none sent, or what `lastEventId` says the client has. */
  async open(ctx: TryCommandContext, id: string, lastEventId?: string): Promise<EvalProgressCursor> {
    const workspaceId = ctx.principal.workspaceId;
    const run = await this.deps.evals.getRun(workspaceId, id);
    if (!run) throw new AppError(ErrorCode.EVAL_NOT_FOUND, 'no such eval run in this workspace', { id });
    const suite = (await this.deps.evals.getSuite(workspaceId, run.suiteId, run.suiteVersion))!;
    const total = suite.cases.length * run.targets.length * run.trials;
    const bytes = Math.ceil(total / 8);
    let sent = new Uint8Array(bytes);
    if (lastEventId !== undefined) {
      const decoded = Buffer.from(lastEventId, 'base64url');
      if (decoded.length !== bytes || decoded.toString('base64url') !== lastEventId) {
        throw new AppError(ErrorCode.VALIDATION_FAILED, 'Last-Event-ID is not a cursor of this eval', [
          { code: 'invalid_cursor', path: ['Last-Event-ID'], message: `expected ${bytes} bytes of base64url` },
        ]);
      }
      sent = new Uint8Array(decoded);
    }
    return { evalId: id, suite, targets: run.targets.length, trials: run.trials, sent };
  }

  /** The trials ended since the cursor (marking them sent), and the eval once settled. */
  async next(ctx: TryCommandContext, cursor: EvalProgressCursor): Promise<EvalProgressStep> {
    const trials = await this.deps.evals.trialsOf(ctx.principal.workspaceId, cursor.evalId);
    const fresh: EvalTrialEvent[] = [];
    for (const t of trials) {
      const slot = (t.caseIndex * cursor.targets + t.target) * cursor.trials + t.trial;
      if (!t.ended || isSet(cursor.sent, slot)) continue;
      cursor.sent[slot >> 3]! |= 1 << (slot & 7);
      const c = cursor.suite.cases[t.caseIndex]!;
      const failures = failedExpectations(c.expect, t.ended.outcome);
      fresh.push({
        caseIndex: t.caseIndex,
        target: t.target,
        trial: t.trial,
        runId: t.runId,
        status: t.ended.outcome.status,
        checksPassed: failures.length === 0,
        failures,
        judgePending: c.judge !== undefined,
        tokens: t.ended.outcome.tokens,
        costUsd: t.ended.outcome.costUsd,
        durationMs: t.ended.durationMs,
      });
    }
    const total = cursor.suite.cases.length * cursor.targets * cursor.trials;
    // A trial row exists from the start; it has ended only once its run did (an unstarted one has no run).
    const allEnded = trials.length === total && trials.every((t) => t.ended);
    // The read command settles, and starts what a dead start left unstarted: a stream is a reader like any other.
    const read = allEnded || trials.some((t) => !t.started) ? await this.deps.evalRuns.read(ctx, cursor.evalId) : null;
    return {
      trials: fresh,
      cursorId: fresh.length > 0 ? Buffer.from(cursor.sent).toString('base64url') : null,
      verdict: read?.status === 'completed' ? read : null,
    };
  }
}

const isSet = (bits: Uint8Array, slot: number) => (bits[slot >> 3]! & (1 << (slot & 7))) !== 0;
