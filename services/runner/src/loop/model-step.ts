import { MODEL_ERROR_CODES, WAITING_ON_RATE_LIMIT, type AgentSpec } from '@switchyard/contracts';
import { ModelError, type ModelResponse } from '../model/model';
import { overBudget } from './budget';
import { LOOP_ERRORS, type AgentLoopOptions } from './loop-options';
import type { RunSession } from './run-session';
import { contextMessages } from './session-memory';
import { boundedSignal, overDuration } from './run-duration';
import { costOf } from './run-tally';
import type { StepOutcome } from './step-outcome';

/**
 * One model call, between two budget checks: a cap reached before the call
 * stops the run, and so does one exceeded by it — so a run goes over a cap
 * by at most one call. The answer is recorded with its usage and cost.
 */
export async function modelStep(session: RunSession, options: AgentLoopOptions): Promise<StepOutcome> {
  const { run, recorder } = session;
  const { budget, model } = run.spec;
  const { tally } = recorder.state;
  if (tally.turns >= budget.maxTurns) return { type: 'failed', code: LOOP_ERRORS.maxTurns, message: `the run reached maxTurns (${budget.maxTurns})` };
  const over = overBudget(budget, tally, session.spend, 'reached');
  if (over) return { type: 'failed', code: LOOP_ERRORS.budget, message: over };
  const overTime = overDuration(session, options);
  if (overTime) return { type: 'failed', code: LOOP_ERRORS.duration, message: overTime };
  let response: ModelResponse & { durationMs: number };
  try {
    response = await complete(session, options);
  } catch (error) {
    if (error instanceof ModelError) {
      // A call cut short by the run's duration limit (boundedSignal) ends the run with that reason, not the model's.
      const cut = error.code === MODEL_ERROR_CODES.aborted && !session.context.signal.aborted ? overDuration(session, options) : null;
      if (cut) return { type: 'failed', code: LOOP_ERRORS.duration, message: cut };
      return { type: 'failed', code: error.code, message: session.redact(error.message) };
    }
    throw error;
  }
  const cost = costOf(options.prices, model, response.usage);
  const { inputTokens, outputTokens, cachedInputTokens } = response.usage;
  options.metrics?.modelCall({ ...modelLabels(model), tokensIn: inputTokens, tokensOut: outputTokens, costUsd: cost.usd, durationMs: response.durationMs });
  if (cost.usd > 0) session.spend = await options.spend.add({ runId: run.id, agentId: run.agentId, workspaceId: run.workspaceId, usd: cost.usd });
  const final = response.final ?? response.toolCalls.length === 0;
  const toolCalls = response.toolCalls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args }));
  recorder.add('assistant', {
    text: response.message,
    toolCalls,
    usage: { inputTokens, outputTokens, ...(cachedInputTokens ? { cachedInputTokens } : {}) },
    costUsd: cost.usd,
    ...(cost.priced ? {} : { unpriced: true as const }),
    final,
    durationMs: Math.round(response.durationMs),
  });
  const overAfter = overBudget(budget, tally, session.spend, 'exceeded');
  if (overAfter) return { type: 'failed', code: LOOP_ERRORS.budget, message: overAfter };
  return final && toolCalls.length === 0 ? { type: 'finished' } : { type: 'model_called', toolCalls };
}

/** The call, timed, with its failure counted by code. */
async function complete(session: RunSession, options: AgentLoopOptions): Promise<ModelResponse & { durationMs: number }> {
  const { model } = session;
  if (!model) throw new Error('the run has no model: model step before set-up');
  const started = performance.now();
  const bounded = boundedSignal(session, options);
  try {
    const response = await model.complete({ messages: contextMessages(session), tools: session.modelTools, signal: bounded.signal, onRateLimitWait: (waitMs) => noteRateLimitWait(session, waitMs) });
    return { ...response, durationMs: performance.now() - started };
  } catch (error) {
    if (error instanceof ModelError) options.metrics?.modelError({ ...modelLabels(session.run.spec.model), code: error.code });
    throw error;
  } finally {
    bounded.release();
  }
}

/** The wait goes on the run's transcript, stored before it starts, so the API and UI show it while it lasts (decision 0060). */
async function noteRateLimitWait(session: RunSession, waitMs: number): Promise<void> {
  session.recorder.add('notice', { code: WAITING_ON_RATE_LIMIT, message: `waiting ${waitMs} ms for the provider's rate limit`, waitMs });
  await session.recorder.flush();
}

/** The metric labels of the run's model. */
export function modelLabels(model: AgentSpec['model']): { provider: string; model: string } {
  return { provider: model.provider, model: model.name };
}
