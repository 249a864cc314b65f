import { ModelError } from '../model/model';
import type { ExecutableRun, ExecutionContext, ExecutionResult, Executor, RunRef } from '../ports';
import { LOOP_ERRORS, type AgentLoopOptions } from './loop-options';
import { abandonSession, closeSession, openSession, prepareSession, type RunSession } from './run-session';
import { failedResult, outcomeOf } from './run-tally';
import { takeStep } from './steps';
import { takeDigest } from './awareness-digest';
import { retryingRedisBlips } from './redis-blips';
import { compactionStep } from './compaction';

export { LOOP_ERRORS } from './loop-options';
export type { AgentLoopOptions, ResolveSecret } from './loop-options';

/**
 * The agent loop — one implementation for every run, whatever its model:
 * set-up (model, tools, first messages), then steps — a model call, or the
 * calls of its answer — until the model's final answer, then teardown. The
 * run's state between steps is a RunState that the loop keeps by folding
 * every transcript entry it records (run-state.ts): the boundary before each
 * model call flushes the transcript, so a run stopped there is continued by
 * any runner from what PostgreSQL holds (a run with entries continues after
 * its last stored step; a model answer not yet stored with its calls'
 * results is asked for again). Stop requests and the kill switch are honoured before
 * model calls; budgets are checked before and after each one, so a run
 * goes over a cap by at most one call. A run closes its session's mailbox
 * as it ends: one that completes takes another step for messages that
 * arrived during its last one; any other ending records what it leaves
 * unread as a notice (MailboxIntake). Tool results and others' messages
 * reach the model as delimited data, never in the system prompt (render.ts).
 */
export class AgentLoop implements Executor {
  constructor(private readonly options: AgentLoopOptions) {}

  async execute(run: ExecutableRun, context: ExecutionContext): Promise<ExecutionResult> {
    const runContext = run.context ?? (await this.options.contexts.context(run));
    if (!runContext) return { status: 'failed', error: { code: LOOP_ERRORS.contextMissing, message: 'the run is not in the ledger any more' } };
    const session = await openSession(this.options, run, context, runContext);
    try {
      await prepareSession(this.options, session);
      const compaction = await compactionStep(session, this.options);
      if (compaction?.type === 'failed') return this.fail(session, compaction.code, compaction.message);
      return await this.drive(session);
    } catch (error) {
      if (error instanceof ModelError) return this.fail(session, error.code, session.redact(error.message));
      throw error;
    } finally {
      await closeSession(this.options, session);
    }
  }

  /**
   * A run that ended without its loop (failed `runner_lost`: its runner died):
   * closes its session's mailbox as its own ending would have (abandonSession);
   * returns a teammate's next turn that it queued, for the caller to claim.
   */
  async abandoned(run: Pick<RunRef, 'id' | 'workspaceId' | 'workspaceSlug'>): Promise<string | null> {
    return abandonSession(this.options, run);
  }

  /** Steps until the run ends: a step boundary, then one step; after a final answer, the close. */
  private async drive(session: RunSession): Promise<ExecutionResult> {
    const { state } = session.recorder;
    for (;;) {
      if (state.next.type === 'finish') {
        if (await this.finish(session)) return { status: 'completed', outcome: outcomeOf(state.tally) };
        continue;
      }
      const ended = await this.boundary(session);
      if (ended) return ended;
      const outcome = await takeStep(session, this.options);
      session.steps += 1;
      this.options.onStep?.(outcome, state);
      switch (outcome.type) {
        case 'failed':
          return this.fail(session, outcome.code, outcome.message);
        case 'interrupted':
          // Parked (tools-step.ts): the run waits for its approvals with its mailbox open.
          session.parked = true;
          return { status: 'parked' };
        case 'model_called':
        case 'tools_ran':
        case 'finished':
          continue;
      }
    }
  }

  /**
   * A step boundary. Before a model call, in one round of independent I/O:
   * write what the steps since the last one recorded (a fresh run's prompt
   * goes with its first step's entries), ask whether the run must stop, and
   * drain the mailbox (deleting what earlier flushes recorded). Before a
   * tools step nothing is written: the model's answer is stored with its
   * calls' results, in one INSERT (decision 0016). Returns the run's result
   * when it ends here.
   */
  private async boundary(session: RunSession): Promise<ExecutionResult | null> {
    const { context, mailbox, recorder } = session;
    if (recorder.state.next.type === 'model') {
      const flushing = session.steps > 0;
      // Redis unreachable for a moment (the mailbox): the boundary is tried again, within the run's deadline.
      const [, stop, drain] = await retryingRedisBlips(session, this.options, () => Promise.all([flushing ? recorder.flush() : undefined, context.shouldStop(), mailbox.read()]));
      // The previous drain's envelopes are in the transcript now: the next read deletes them.
      if (flushing) mailbox.recorded();
      if (context.signal.aborted) return this.aborted(session);
      if (stop) return { status: 'cancelled', reason: stop, outcome: outcomeOf(recorder.state.tally) };
      mailbox.absorb(drain);
      // Only an agent that opted into the pilot's digest reads peer notes; every other run's context is untouched.
      if (this.options.peerNotes && session.run.spec.awareness === 'digest') await takeDigest(session, this.options.peerNotes);
      return null;
    }
    return context.signal.aborted ? this.aborted(session) : null;
  }

  private aborted(session: RunSession): ExecutionResult {
    return failedResult(session.recorder.state.tally, LOOP_ERRORS.aborted, String(session.context.signal.reason ?? 'aborted'));
  }

  /**
   * After the final answer: its entries written, and the mailbox's last drain
   * and close. True when the run may complete; false when messages came
   * (recorded, deleted from the mailbox after the next flush: the model is
   * asked again). Redis failing here does not fail work that is done: the
   * run completes, and teardown tries the close again.
   */
  private async finish(session: RunSession): Promise<boolean> {
    const { mailbox, recorder } = session;
    const close = () =>
      mailbox.closeIfDrained().catch((error: unknown) => {
        this.options.log.warn({ err: error, runId: session.run.id }, 'mailbox not closed with the last drain');
        return true;
      });
    // Drained messages wait for this flush; the close then deletes them as it closes. Otherwise both at
    // once: the flush takes its entries first, and messages the close returns are written by the next one.
    if (mailbox.settled) return (await Promise.all([recorder.flush(), close()]))[1];
    await recorder.flush();
    mailbox.recorded();
    return close();
  }

  private fail(session: RunSession, code: string, message: string): ExecutionResult {
    session.recorder.add('notice', { code, message });
    return failedResult(session.recorder.state.tally, code, message);
  }
}
