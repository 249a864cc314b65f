import { usd } from '../format';
import type { AgentResponse } from '../types';

/** A duration in ms as a person reads it: `0` is off. */
function ms(value: number | undefined): string {
  if (!value) return 'off';
  if (value < 1_000) return `${value} ms`;
  if (value < 60_000) return `${value / 1_000} s`;
  if (value < 3_600_000) return `${Math.round(value / 60_000)} min`;
  return `${Math.round(value / 3_600_000)} h`;
}

/** Today's spend against the per-day budget, marked when it is reached. */
export function SpendToday({ agent }: { agent: AgentResponse }) {
  const spent = agent.usage?.spentTodayUsd ?? 0;
  const cap = agent.spec.budget.perDayUsd;
  return (
    <span className={spent >= cap ? 'error' : undefined} data-testid="spend-today">
      {usd(spent)} / {usd(cap)}
    </span>
  );
}

/** Runs waiting against the queue cap, marked when full (the next activation is dropped `queue_full`). */
export function QueueFill({ agent }: { agent: AgentResponse }) {
  const queued = agent.usage?.queuedRuns ?? 0;
  const cap = agent.spec.flow.queueCap;
  return (
    <span className={queued >= cap ? 'error' : undefined} data-testid="queue-fill">
      {queued} / {cap} queued
    </span>
  );
}

/** Every limit of an agent in one place (decision 0029: "an invisible guard is a support ticket"). */
export function Limits({ agent }: { agent: AgentResponse }) {
  const { budget, flow } = agent.spec;
  return (
    <dl className="facts-grid limits" data-testid="limits">
      <dt>Spent today (UTC)</dt>
      <dd>
        <SpendToday agent={agent} /> per day
      </dd>
      <dt>Per run</dt>
      <dd>
        {usd(budget.perRunUsd)} · {budget.maxTurns} turns{budget.maxTokens ? ` · ${budget.maxTokens} tokens` : ''}
      </dd>
      <dt>Queue</dt>
      <dd>
        <QueueFill agent={agent} /> · {flow.concurrency} at once · priority {flow.priority}
      </dd>
      <dt>Cooldown</dt>
      <dd data-testid="cooldown">{ms(flow.cooldownMs)}</dd>
      <dt>Debounce</dt>
      <dd>{ms(flow.debounceMs)}</dd>
      <dt>Throttle</dt>
      <dd>{flow.throttle ? `${flow.throttle.limit} per ${ms(flow.throttle.periodMs)}` : 'off'}</dd>
    </dl>
  );
}
