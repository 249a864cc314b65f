import type { Fact, WaitForEventResult } from '@switchyard/contracts';
import type { ModelToolCall } from '../model/model';
import type { AgentLoopOptions } from './loop-options';
import { recordRanTime } from './run-duration';
import type { RunSession } from './run-session';
import { WAIT_TOOL, waitInputOf, waitResultContent } from './wait-tool';

/** Codes of a wait call's failed result (tool results, not run endings). */
export const WAIT_ERRORS = {
  /** The arguments do not parse (bad kind, filter, timeout): the model can correct them. */
  invalid: 'wait_invalid',
  /** This runner cannot park (a try run, or no wait store), or the park failed. */
  unavailable: 'wait_unavailable',
  /** A second wait in one answer: a run waits for one fact at a time. */
  oneAtATime: 'wait_one_at_a_time',
} as const;

/**
 * The wait calls of the last answer (decision 0055). A call whose wait was
 * resolved (the run resumed) gets the fact or the timeout as its result; a
 * new one takes the workspace's seq (facts after it count), stores the
 * transcript with the running time so far (parked time does not count,
 * decision 0050), and parks — unless a fact recorded since the call already
 * matches, which is its result at once. Returns the call the run parked on.
 */
export async function waitStep(session: RunSession, calls: readonly ModelToolCall[], options: AgentLoopOptions): Promise<ModelToolCall | null> {
  const [call, ...extra] = calls;
  for (const other of extra) fail(session, other, WAIT_ERRORS.oneAtATime, 'a run waits for one fact at a time; call wait_for_event again after this one');
  if (!call) return null;
  const { run, context, recorder } = session;
  const waits = options.waits;
  if (!waits || !context.parkOnWait) {
    fail(session, call, WAIT_ERRORS.unavailable, 'this run cannot wait for facts (a try run never parks)');
    return null;
  }
  const resolved = await waits.outcome(run.id, call.id);
  if (resolved) {
    if (resolved.type === 'cancelled') fail(session, call, WAIT_ERRORS.unavailable, 'the wait was closed: the run was stopped');
    else succeed(session, call, resolved);
    return null;
  }
  const parsed = waitInputOf(argsOf(call));
  if (!parsed.ok) {
    fail(session, call, WAIT_ERRORS.invalid, parsed.message);
    return null;
  }
  try {
    const afterSeq = await waits.currentSeq(run.workspaceId);
    recordRanTime(session);
    await recorder.flush();
    const { kind, filter, timeoutMs } = parsed.input;
    const outcome = await context.parkOnWait({ toolCallId: call.id, kind, filter: filter ?? null, timeoutMs, afterSeq });
    if (outcome.type === 'parked') return call;
    if (outcome.type === 'matched') succeed(session, call, { type: 'fact', fact: outcome.fact });
    else fail(session, call, WAIT_ERRORS.unavailable, 'the run is not this runner’s any more: not parked');
  } catch (error) {
    options.log.warn({ err: error, runId: run.id }, 'run not parked on its wait');
    fail(session, call, WAIT_ERRORS.unavailable, `the wait could not be recorded (${error instanceof Error ? error.message : String(error)})`);
  }
  return null;
}

function argsOf(call: ModelToolCall): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(call.arguments || '{}');
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function succeed(session: RunSession, call: ModelToolCall, result: WaitForEventResult | { type: 'fact'; fact: Fact }): void {
  session.recorder.add('tool', { toolCallId: call.id, name: WAIT_TOOL.name, arguments: argsOf(call), ok: true, result: waitResultContent(result), durationMs: 0 });
}

function fail(session: RunSession, call: ModelToolCall, code: string, message: string): void {
  session.recorder.add('tool', { toolCallId: call.id, name: WAIT_TOOL.name, arguments: argsOf(call), ok: false, error: { code, message }, durationMs: 0 });
}
