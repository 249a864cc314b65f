import { TOOL_REFUSAL_CODES, type RunStateNext } from '@switchyard/contracts';
import { LOOP_ERRORS, type AgentLoopOptions } from './loop-options';
import { recordRanTime } from './run-duration';
import { effectiveMode, offerTools, type RunSession } from './run-session';
import type { StepOutcome } from './step-outcome';
import { answerAsks, callTools, type AskingCall } from './tool-calls';
import { waitStep } from './wait-step';
import { isWaitCall, WAIT_TOOL } from './wait-tool';

/**
 * Runs the calls of the last answer that have no result yet; a final
 * answer's calls end the run's last step. Their results are written with
 * the answer at the next flush, unless something must be stored first: the
 * park, an approved call's at-most-once mark, and the started marks of calls
 * not safe to repeat (tool-calls.ts, decision 0051). Calls a
 * person must decide first park the run (decision 0026): the transcript so
 * far is written, then the approvals and the park in one transaction — `interrupted`. A failure to
 * park fails those calls (they never run); a workspace that denies every ask
 * gets them refused at once, and the run goes on.
 */
export async function toolsStep(session: RunSession, next: Extract<RunStateNext, { type: 'tools' }>, options: AgentLoopOptions): Promise<StepOutcome> {
  const { run, host, recorder, context } = session;
  if (!host) throw new Error('the run has no tool host: tools step before set-up');
  const mode = effectiveMode(session);
  // Wait calls are the loop's own (wait-step.ts), answered after the others: a wait parks the run.
  const waits = session.callable.includes(WAIT_TOOL) ? next.calls.filter((call) => isWaitCall(call.name)) : [];
  const asks = await callTools({
    calls: waits.length === 0 ? next.calls : next.calls.filter((call) => !isWaitCall(call.name)),
    host,
    tools: session.callable,
    policy: { permissionMode: mode, rules: run.spec.rules, guardedGlobs: options.guardedTools },
    redact: session.redact,
    reason: lastSaid(session),
    signal: context.signal,
    transcript: recorder,
    metrics: options.metrics,
    approvals: options.approvals,
    unrecorded: unrecorded(session, next.calls),
    run: { runId: run.id, workspaceId: run.workspaceId },
    afterPlan: run.spec.approvals.afterPlan,
    shadow: session.runContext.origin.type === 'try',
  });
  if (effectiveMode(session) !== mode) offerTools(session);
  if (asks.length > 0 && (await park(session, asks, options))) return { type: 'interrupted', pending: asks.map((ask) => ask.call) };
  const waitedOn = waits.length > 0 ? await waitStep(session, waits, options) : null;
  if (waitedOn) return { type: 'interrupted', pending: [waitedOn] };
  if (recorder.state.next.type === 'finish') return { type: 'finished' };
  return next.final ? { type: 'finished' } : { type: 'tools_ran', calls: next.calls.length };
}

/** Parks the run on the asks; false when it did not (the asks are answered then, and the run goes on). */
async function park(session: RunSession, asks: readonly AskingCall[], options: AgentLoopOptions): Promise<boolean> {
  const { recorder, context, run } = session;
  const fail = (message: string) => answerAsks({ transcript: recorder, metrics: options.metrics }, asks, () => ({ code: LOOP_ERRORS.approvalUnavailable, message, refused: false }));
  if (!context.park) {
    fail('this runner cannot park runs for approvals; the call did not run');
    return false;
  }
  try {
    // What the run did so far is stored before it waits, with its running time: parked time does not count (decision 0050).
    recordRanTime(session);
    await recorder.flush();
    const outcome = await context.park(asks.map((ask) => ask.request), run.spec.approvals.timeoutMs);
    if (outcome.type === 'parked') return true;
    const message = 'the platform denied this call: the workspace denies every approval request (setting approvals: deny)';
    answerAsks({ transcript: recorder, metrics: options.metrics }, asks, () => ({ code: TOOL_REFUSAL_CODES.approvalDenied, message, refused: true }));
    return false;
  } catch (error) {
    options.log.warn({ err: error, runId: run.id }, 'run not parked; its calls that ask fail');
    fail(`the approval could not be recorded (${error instanceof Error ? error.message : String(error)}); the call did not run`);
    return false;
  }
}

/**
 * Whether no approval can be recorded for these calls: approvals are keyed by
 * run and call id, and asked for by a park, which ends an execution — so an
 * answer made by this execution has none, unless it repeats the id of a call
 * of an earlier answer (a model may reuse ids). A resumed run's answer was made
 * before, and its calls are looked up.
 */
function unrecorded(session: RunSession, calls: ReadonlyArray<{ id: string }>): boolean {
  if (session.steps === 0) return false;
  const answers = session.recorder.state.conversation.filter((message) => message.role === 'assistant');
  const earlier = new Set(answers.slice(0, -1).flatMap((message) => message.toolCalls.map((call) => call.id)));
  return calls.every((call) => !earlier.has(call.id));
}

/** What the model said with the calls of its last answer. */
function lastSaid(session: RunSession): string | null {
  const { conversation } = session.recorder.state;
  for (let i = conversation.length - 1; i >= 0; i--) {
    const message = conversation[i]!;
    if (message.role === 'assistant') return message.content;
  }
  return null;
}
