import {
  ACTIVATION_DROP_REASONS,
  ACTIVATION_SKIP_REASONS,
  AppError,
  ErrorCode,
  type ActivationDropReason,
  type ActivationSkipReason,
  type AgentSpec,
  type CausedBy,
} from '@switchyard/contracts';

/** Causation depth at which facts stop activating agents, unless configured otherwise. */
export const DEFAULT_MAX_CAUSATION_DEPTH = 5;

/**
 * The outcome for one (agent, fact) match. `skip` creates no run (counted in
 * metrics only); `drop` records the run as `dropped` with its reason, so an
 * overflow stays visible.
 */
export type ActivationDecision =
  | { action: 'activate' }
  | { action: 'skip'; reason: ActivationSkipReason }
  | { action: 'drop'; reason: ActivationDropReason };

/** The workspace settings the guards read. */
export interface ActivationWorkspace {
  /** The kill switch: while true, no fact activates any agent of the workspace. */
  agentsPaused: boolean;
}

/** The agent the fact matched. */
export interface ActivationAgent {
  agentId: string;
  /** The head's flag at decision time (it may have changed since the index matched). */
  enabled: boolean;
  spec: Pick<AgentSpec, 'allowSelfCause' | 'flow'>;
}

/** What the guards read from the fact. */
export interface ActivationFact {
  /** Set when a run caused the fact; absent for facts from producers. */
  causedBy?: Pick<CausedBy, 'agentId' | 'depth'> | undefined;
}

/**
 * What the caller knows about the agent's past activations, read before the
 * decision. Times are milliseconds on the same clock as `now`.
 */
export interface ActivationHistory {
  /** Whether a run already exists for this (agentId, eventId): the dedup key. */
  alreadyActivated: boolean;
  /** When a fact of this fact's kind last activated the agent; undefined if never. */
  lastActivationOfKindAt?: number | undefined;
  /**
   * When the agent's activations happened, at least all those within the
   * throttle period (older ones are ignored, so passing more is harmless).
   */
  recentActivationsAt: readonly number[];
  /**
   * When the agent's previous fact reached the debounce step (see
   * `reachedDebounce`); undefined if none did.
   */
  lastDebounceArrivalAt?: number | undefined;
  /** How many runs of the agent are `queued` now (not running). */
  queuedRuns: number;
}

/** Everything one decision needs, as plain data. */
export interface ActivationInput {
  /** The decision time in milliseconds. */
  now: number;
  workspace: ActivationWorkspace;
  agent: ActivationAgent;
  fact: ActivationFact;
  history: ActivationHistory;
}

/** Options of ActivationGuards. */
export interface ActivationGuardsOptions {
  /**
   * Facts whose `causedBy.depth` is at least this activate nothing: the cap on
   * agent → fact → agent chains. 0 means caused facts never activate.
   * @defaultValue DEFAULT_MAX_CAUSATION_DEPTH (5)
   */
  maxCausationDepth?: number;
}

/**
 * The guards between "this agent's trigger matched this fact" and "queue a
 * run", applied in the order of issue 3: kill switch, enabled, self-cause,
 * causation depth, per-(agent, kind) cooldown, dedup on (agentId, eventId),
 * throttle, debounce, queue cap. The first guard that refuses decides, so a
 * paused workspace reports `paused` even for a duplicate. Pure: the caller
 * reads the history, decides, then records the outcome.
 *
 * Boundaries: every window is half-open, `[t, t + window)`. A fact exactly
 * `cooldownMs` after the kind's last activation passes; an activation exactly
 * `periodMs` ago no longer counts towards the throttle; a fact exactly
 * `debounceMs` after the previous arrival passes. A zero `cooldownMs` or
 * `debounceMs` turns that guard off.
 *
 * **Debounce is leading-edge over a quiet period**: a fact is skipped as
 * `debounced` when the agent's previous fact that reached the debounce step
 * arrived less than `debounceMs` earlier — whether that one activated or was
 * itself debounced. So a burst of matching facts activates once, for its first
 * fact, and the agent activates again only after `debounceMs` without any.
 * Trailing debounce (run once, with the last fact, after the burst) would need
 * a deferred activation that survives crashes and a Redis flush, and the
 * activation would lag every burst by `debounceMs`; the leading form is
 * decided when the fact arrives from data already stored, and starts the first
 * run at once. Its cost: facts that keep arriving closer than `debounceMs`
 * apart activate only the first; use `throttle` for "at most N per period".
 */
export class ActivationGuards {
  private readonly maxCausationDepth: number;

  /** @throws AppError CONFIG_INVALID when maxCausationDepth is not a non-negative integer. */
  constructor(options: ActivationGuardsOptions = {}) {
    const depth = options.maxCausationDepth ?? DEFAULT_MAX_CAUSATION_DEPTH;
    if (!Number.isInteger(depth) || depth < 0) {
      throw new AppError(ErrorCode.CONFIG_INVALID, 'maxCausationDepth must be a non-negative integer', { maxCausationDepth: depth });
    }
    this.maxCausationDepth = depth;
  }

  /** Decides one (agent, fact) match; expected refusals are returned, never thrown. */
  decide(input: ActivationInput): ActivationDecision {
    const { now, workspace, agent, fact, history } = input;
    const { flow } = agent.spec;
    if (workspace.agentsPaused) return skip(ACTIVATION_SKIP_REASONS.paused);
    if (!agent.enabled) return skip(ACTIVATION_SKIP_REASONS.disabled);
    if (fact.causedBy?.agentId === agent.agentId && !agent.spec.allowSelfCause) return skip(ACTIVATION_SKIP_REASONS.selfCaused);
    if (fact.causedBy !== undefined && fact.causedBy.depth >= this.maxCausationDepth) return skip(ACTIVATION_SKIP_REASONS.depthExceeded);
    if (within(now, history.lastActivationOfKindAt, flow.cooldownMs)) return skip(ACTIVATION_SKIP_REASONS.cooldown);
    // A redelivered fact that did activate usually stops at the cooldown above (its own run started it): no second run either way.
    if (history.alreadyActivated) return skip(ACTIVATION_SKIP_REASONS.duplicate);
    if (flow.throttle !== undefined) {
      const { limit, periodMs } = flow.throttle;
      const inWindow = history.recentActivationsAt.filter((at) => now - at < periodMs).length;
      if (inWindow >= limit) return skip(ACTIVATION_SKIP_REASONS.throttled);
    }
    if (within(now, history.lastDebounceArrivalAt, flow.debounceMs)) return skip(ACTIVATION_SKIP_REASONS.debounced);
    if (history.queuedRuns >= flow.queueCap) return { action: 'drop', reason: ACTIVATION_DROP_REASONS.queueFull };
    return { action: 'activate' };
  }
}

/**
 * Whether the decision's fact reached the debounce step, so that the caller
 * must store `now` as the agent's `lastDebounceArrivalAt`: true for
 * `activate`, `debounced` and `queue_full` (it passed debounce), false for the
 * guards before it — a duplicate or a throttled fact does not extend the quiet period.
 */
export function reachedDebounce(decision: ActivationDecision): boolean {
  return decision.action !== 'skip' || decision.reason === ACTIVATION_SKIP_REASONS.debounced;
}

/** Whether `now` falls in `[since, since + windowMs)`; a zero window or no `since` never holds. */
function within(now: number, since: number | undefined, windowMs: number): boolean {
  return windowMs > 0 && since !== undefined && now - since < windowMs;
}

function skip(reason: ActivationSkipReason): ActivationDecision {
  return { action: 'skip', reason };
}
