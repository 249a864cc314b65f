import { ACTIVATION_SKIP_REASONS, type AgentSpec } from '@switchyard/contracts';
import {
  ActivationGuards,
  DEFAULT_MAX_CAUSATION_DEPTH,
  reachedDebounce,
  type ActivationDecision,
  type ActivationInput,
} from '../src/activation-guards';
import { BASE_SPEC } from './agent-fixtures';

const NOW = 1_000_000;
const guards = new ActivationGuards();

type Flow = AgentSpec['flow'];

/**
 * Why this exists: each test changes one or two inputs of a decision that
 * otherwise activates, so a failure points at exactly one guard.
 */
function input(
  change: {
    paused?: boolean;
    enabled?: boolean;
    allowSelfCause?: boolean;
    flow?: Partial<Flow>;
    causedBy?: { agentId: string; depth: number };
    history?: Partial<ActivationInput['history']>;
  } = {},
): ActivationInput {
  return {
    now: NOW,
    workspace: { agentsPaused: change.paused ?? false },
    agent: {
      agentId: 'agent-1',
      enabled: change.enabled ?? true,
      spec: { allowSelfCause: change.allowSelfCause ?? false, flow: { ...BASE_SPEC.flow, ...change.flow } },
    },
    fact: { causedBy: change.causedBy },
    history: { alreadyActivated: false, recentActivationsAt: [], queuedRuns: 0, ...change.history },
  };
}

const ACTIVATE: ActivationDecision = { action: 'activate' };
const skipped = (reason: string) => ({ action: 'skip', reason });

describe('ActivationGuards, one guard at a time', () => {
  it('activates when every guard passes', () => {
    expect(guards.decide(input())).toEqual(ACTIVATE);
  });

  it('skips everything while the workspace is paused', () => {
    expect(guards.decide(input({ paused: true }))).toEqual(skipped('paused'));
  });

  it('skips a disabled agent', () => {
    expect(guards.decide(input({ enabled: false }))).toEqual(skipped('disabled'));
  });

  it("skips the agent's own facts unless it opts in", () => {
    const own = { agentId: 'agent-1', depth: 1 };
    expect(guards.decide(input({ causedBy: own }))).toEqual(skipped('self_caused'));
    expect(guards.decide(input({ causedBy: own, allowSelfCause: true }))).toEqual(ACTIVATE);
    expect(guards.decide(input({ causedBy: { agentId: 'agent-2', depth: 1 } }))).toEqual(ACTIVATE);
  });

  it('caps the causation depth: depth == cap stops, cap - 1 passes', () => {
    const at = (depth: number) => guards.decide(input({ causedBy: { agentId: 'agent-2', depth } }));
    expect(DEFAULT_MAX_CAUSATION_DEPTH).toBe(5);
    expect(at(4)).toEqual(ACTIVATE);
    expect(at(5)).toEqual(skipped('depth_exceeded'));
    expect(at(6)).toEqual(skipped('depth_exceeded'));
    // The opt-in to self-cause does not lift the depth cap.
    expect(guards.decide(input({ causedBy: { agentId: 'agent-1', depth: 5 }, allowSelfCause: true }))).toEqual(skipped('depth_exceeded'));
  });

  it('takes the depth cap from its options and refuses a bad one', () => {
    const strict = new ActivationGuards({ maxCausationDepth: 0 });
    expect(strict.decide(input({ causedBy: { agentId: 'agent-2', depth: 0 } }))).toEqual(skipped('depth_exceeded'));
    expect(strict.decide(input())).toEqual(ACTIVATE);
    expect(new ActivationGuards({ maxCausationDepth: 2 }).decide(input({ causedBy: { agentId: 'x', depth: 1 } }))).toEqual(ACTIVATE);
    expect(() => new ActivationGuards({ maxCausationDepth: -1 })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => new ActivationGuards({ maxCausationDepth: 1.5 })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });

  it('holds the per-kind cooldown until exactly cooldownMs has passed', () => {
    const after = (elapsed: number, cooldownMs = 1_000) =>
      guards.decide(input({ flow: { cooldownMs }, history: { lastActivationOfKindAt: NOW - elapsed } }));
    expect(after(0)).toEqual(skipped('cooldown'));
    expect(after(999)).toEqual(skipped('cooldown'));
    expect(after(1_000)).toEqual(ACTIVATE);
    expect(after(0, 0)).toEqual(ACTIVATE);
    expect(guards.decide(input({ flow: { cooldownMs: 1_000 } }))).toEqual(ACTIVATE);
  });

  it('skips a fact that already activated the agent', () => {
    expect(guards.decide(input({ history: { alreadyActivated: true } }))).toEqual(skipped('duplicate'));
  });

  it('throttles at the limit within the period, counting only activations less than periodMs ago', () => {
    const throttle = { limit: 3, periodMs: 60_000 };
    const withActivations = (...ago: number[]) =>
      guards.decide(input({ flow: { throttle }, history: { recentActivationsAt: ago.map((a) => NOW - a) } }));
    expect(withActivations(1, 2)).toEqual(ACTIVATE);
    expect(withActivations(1, 2, 59_999)).toEqual(skipped('throttled'));
    expect(withActivations(1, 2, 60_000)).toEqual(ACTIVATE);
    expect(withActivations(1, 2, 60_000, 120_000, 500_000)).toEqual(ACTIVATE);
    expect(guards.decide(input({ history: { recentActivationsAt: [NOW, NOW, NOW, NOW] } }))).toEqual(ACTIVATE);
  });

  it('debounces until debounceMs after the previous arrival', () => {
    const after = (elapsed: number, debounceMs = 500) =>
      guards.decide(input({ flow: { debounceMs }, history: { lastDebounceArrivalAt: NOW - elapsed } }));
    expect(after(0)).toEqual(skipped('debounced'));
    expect(after(499)).toEqual(skipped('debounced'));
    expect(after(500)).toEqual(ACTIVATE);
    expect(after(0, 0)).toEqual(ACTIVATE);
    expect(guards.decide(input({ flow: { debounceMs: 500 } }))).toEqual(ACTIVATE);
  });

  it('drops (not skips) an activation once the queue holds queueCap runs', () => {
    expect(guards.decide(input({ flow: { queueCap: 2 }, history: { queuedRuns: 1 } }))).toEqual(ACTIVATE);
    expect(guards.decide(input({ flow: { queueCap: 2 }, history: { queuedRuns: 2 } }))).toEqual({ action: 'drop', reason: 'queue_full' });
    expect(guards.decide(input({ flow: { queueCap: 2 }, history: { queuedRuns: 7 } }))).toEqual({ action: 'drop', reason: 'queue_full' });
  });
});

describe('ActivationGuards order', () => {
  it('reports a paused workspace even for a duplicate', () => {
    expect(guards.decide(input({ paused: true, history: { alreadyActivated: true } }))).toEqual(skipped('paused'));
  });

  it('reports the first failing guard, in the order of the issue', () => {
    // Every guard fails; lifting the reported one reveals the next.
    const all = input({
      paused: true,
      enabled: false,
      causedBy: { agentId: 'agent-1', depth: 9 },
      flow: { cooldownMs: 1_000, debounceMs: 1_000, queueCap: 1, throttle: { limit: 1, periodMs: 1_000 } },
      history: { alreadyActivated: true, lastActivationOfKindAt: NOW, recentActivationsAt: [NOW], lastDebounceArrivalAt: NOW, queuedRuns: 1 },
    });
    const lift: Record<string, (i: ActivationInput) => void> = {
      paused: (i) => {
        i.workspace.agentsPaused = false;
      },
      disabled: (i) => {
        i.agent.enabled = true;
      },
      self_caused: (i) => {
        i.fact.causedBy = { agentId: 'agent-2', depth: 9 };
      },
      depth_exceeded: (i) => {
        i.fact.causedBy = undefined;
      },
      cooldown: (i) => {
        i.history.lastActivationOfKindAt = undefined;
      },
      duplicate: (i) => {
        i.history.alreadyActivated = false;
      },
      throttled: (i) => {
        i.history.recentActivationsAt = [];
      },
      debounced: (i) => {
        i.history.lastDebounceArrivalAt = undefined;
      },
      queue_full: (i) => {
        i.history.queuedRuns = 0;
      },
    };
    const seen: string[] = [];
    for (let step = 0; step < 20; step++) {
      const decision = guards.decide(all);
      if (decision.action === 'activate') break;
      seen.push(decision.reason);
      lift[decision.reason]?.(all);
    }
    expect(seen).toEqual([...Object.values(ACTIVATION_SKIP_REASONS), 'queue_full']);
  });
});

describe('debounce over a burst', () => {
  it('activates the first fact of a burst and again only after a quiet debounceMs', () => {
    // The caller's bookkeeping: store the arrival time whenever reachedDebounce says so.
    let lastDebounceArrivalAt: number | undefined;
    const activatedAt: number[] = [];
    const arrivals = [0, 100, 200, 450, 700, 1_200, 1_300, 1_799, 2_299];
    for (const now of arrivals) {
      const decision = guards.decide({ ...input({ flow: { debounceMs: 500 }, history: { lastDebounceArrivalAt } }), now });
      if (reachedDebounce(decision)) lastDebounceArrivalAt = now;
      if (decision.action === 'activate') activatedAt.push(now);
    }
    // 0 starts a burst that 100…700 extend; 1,200 is 500 after 700; 1,799 is 499 after 1,300; 2,299 is 500 after 1,799.
    expect(activatedAt).toEqual([0, 1_200, 2_299]);
  });

  it('counts activations, debounced facts and drops as arrivals, not earlier refusals', () => {
    expect(reachedDebounce({ action: 'activate' })).toBe(true);
    expect(reachedDebounce({ action: 'skip', reason: 'debounced' })).toBe(true);
    expect(reachedDebounce({ action: 'drop', reason: 'queue_full' })).toBe(true);
    for (const reason of Object.values(ACTIVATION_SKIP_REASONS).filter((r) => r !== 'debounced')) {
      expect(reachedDebounce({ action: 'skip', reason })).toBe(false);
    }
  });
});
