import { Counter, Histogram, type Registry } from 'prom-client';
import type { LoopMetrics } from './loop/loop-ports';
import type { RateGateMetrics } from './model/rate-gate';

/**
 * The agent loop's counters on the runner's registry (its health port's
 * `/metrics`): model calls, tokens, cost and latency by provider and model,
 * model errors by code, tool calls by server, tool and result.
 */
export function loopMetrics(registry: Registry): LoopMetrics {
  const registers = [registry];
  const calls = new Counter({ name: 'switchyard_runner_model_calls_total', help: 'Model calls answered', labelNames: ['provider', 'model'], registers });
  const tokens = new Counter({
    name: 'switchyard_runner_model_tokens_total',
    help: 'Tokens of answered model calls, by direction (in: prompt, out: completion)',
    labelNames: ['provider', 'model', 'direction'],
    registers,
  });
  const cost = new Counter({
    name: 'switchyard_runner_model_cost_usd_total',
    help: 'USD of answered model calls, from the price table (unpriced models add 0)',
    labelNames: ['provider', 'model'],
    registers,
  });
  const latency = modelHistogram(registry, 'switchyard_runner_model_call_duration_seconds', 'Time of answered model calls, retries included', [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]);
  const errors = new Counter({
    name: 'switchyard_runner_model_errors_total',
    help: 'Model calls that failed, by error code (after the adapter\'s retries)',
    labelNames: ['provider', 'model', 'code'],
    registers,
  });
  const tools = new Counter({
    name: 'switchyard_runner_tool_calls_total',
    help: 'Tool calls by server, tool (<server>.<tool>; (unknown) for names the run has no tool of) and result (ok, refused, failed)',
    labelNames: ['server', 'tool', 'result'],
    registers,
  });
  return {
    modelCall: ({ provider, model, tokensIn, tokensOut, costUsd, durationMs }) => {
      calls.inc({ provider, model });
      tokens.inc({ provider, model, direction: 'in' }, tokensIn);
      tokens.inc({ provider, model, direction: 'out' }, tokensOut);
      cost.inc({ provider, model }, costUsd);
      latency.observe({ provider, model }, durationMs / 1000);
    },
    modelError: (labels) => errors.inc(labels),
    toolCall: (labels) => tools.inc(labels),
  };
}

/**
 * The waits on the provider keys' shared rate limits (decision 0060) on the runner's registry:
 * how often and how long calls waited their turn, and the 429 pauses that held every runner, by
 * provider and model. What an operator reads to tell a limit that is too tight from a slow provider.
 */
export function rateLimitMetrics(registry: Registry): (labels: { provider: string; model: string }) => RateGateMetrics {
  const registers = [registry];
  const waits = modelHistogram(
    registry,
    'switchyard_runner_rate_limit_wait_seconds',
    'Time model calls waited their turn on the shared provider rate limit (each wait; the count is the number of waits)',
    [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  );
  const counter = (name: string, help: string) => new Counter({ name, help, labelNames: ['provider', 'model'], registers });
  const pauses = counter('switchyard_runner_rate_limit_pauses_total', "Provider 429s whose retry-after paused the shared bucket for every runner");
  const pausedSeconds = counter('switchyard_runner_rate_limit_paused_seconds_total', "Seconds of retry-after the provider's 429s asked for (the bucket's pauses)");
  return (labels) => ({
    waited: (ms) => waits.observe(labels, ms / 1000),
    paused: (ms) => {
      pauses.inc(labels);
      pausedSeconds.inc(labels, ms / 1000);
    },
  });
}

/** A histogram of seconds by provider and model on the runner's registry. */
function modelHistogram(registry: Registry, name: string, help: string, buckets: number[]): Histogram<'provider' | 'model'> {
  return new Histogram({ name, help, labelNames: ['provider', 'model'], buckets, registers: [registry] });
}
