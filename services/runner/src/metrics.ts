import { Counter, Histogram, type Registry } from 'prom-client';
import type { LoopMetrics } from './loop/loop-ports';

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
  const latency = new Histogram({
    name: 'switchyard_runner_model_call_duration_seconds',
    help: 'Time of answered model calls, retries included',
    labelNames: ['provider', 'model'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers,
  });
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
