/**
 * The agents the harness creates and the facts it offers, with the harness's
 * own answer to "which agents does this fact activate". That answer is written
 * here from the specs below, independently of the matcher's code, so that a
 * matcher that activates too much or too little shows in the checks.
 */

/** One fact the load generator offers: `n` is its number in the load. */
export interface OfferedFact {
  n: number;
  kind: string;
  subject: { type: string; id: string };
  payload: { n: number; env?: 'prod' | 'staging' };
  idempotencyKey: string;
}

/** An agent of the scenario: its name, its concurrency, and which offered facts it must run for. */
export interface ScenarioAgent {
  name: string;
  concurrency: number;
  /** Whether the scenario expects some of its runs `dropped` (a queue cap that overflows). */
  overflows: boolean;
  /** The harness's own matching rule for this agent's triggers and filter. */
  matches(fact: OfferedFact): boolean;
  /** The spec posted to `POST /agents`. */
  spec: Record<string, unknown>;
}

const scripted = (name: string, steps: number, stepMs: number, triggers: unknown[], flow: Record<string, unknown>) => ({
  name,
  instructions: 'Act on the fact.',
  model: { provider: 'scripted', name: 'script', params: { stepMs } },
  script: Array.from({ length: steps }, (_, i) => ({ say: `step ${i} of {{event.subject.id}}` })),
  triggers,
  flow,
});

/**
 * The fact mix, by `n % 20`: 0 a build (5 %), 1 a prod deploy and 2 a staging
 * deploy (5 % each), 3 a burst (5 %), anything else noise no agent listens to.
 */
export function offeredFact(n: number, loadId: string): OfferedFact {
  const slot = n % 20;
  const base = { n, subject: { type: 'chaos', id: String(n) }, idempotencyKey: `${loadId}-${n}` };
  if (slot === 0) return { ...base, kind: 'chaos.build', payload: { n } };
  if (slot === 1 || slot === 2) return { ...base, kind: 'chaos.deploy', payload: { n, env: slot === 1 ? 'prod' : 'staging' } };
  if (slot === 3) return { ...base, kind: 'chaos.burst', payload: { n } };
  return { ...base, kind: `chaos.noise.k${slot % 4}`, payload: { n } };
}

/** The agent that also gets one manual run a second during the load. */
export const MANUAL_RUN_AGENT = 'serial';

/** The four agents: concurrency 1, concurrency 3, a trigger filter, and a queue cap that overflows. */
export const SCENARIO_AGENTS: readonly ScenarioAgent[] = [
  {
    name: 'serial',
    concurrency: 1,
    overflows: false,
    matches: (fact) => fact.kind === 'chaos.build',
    spec: scripted('serial', 2, 5, [{ kind: 'chaos.build' }], { concurrency: 1, queueCap: 10_000 }),
  },
  {
    name: 'triple',
    concurrency: 3,
    overflows: false,
    matches: (fact) => fact.kind === 'chaos.deploy',
    spec: scripted('triple', 2, 20, [{ kind: 'chaos.deploy' }], { concurrency: 3, queueCap: 10_000 }),
  },
  {
    name: 'filtered',
    concurrency: 1,
    overflows: false,
    matches: (fact) => fact.kind === 'chaos.deploy' && fact.payload.env === 'prod',
    spec: scripted('filtered', 2, 5, [{ kind: 'chaos.*', filter: { path: 'payload.env', op: 'eq', value: 'prod' } }], { concurrency: 1, queueCap: 10_000 }),
  },
  {
    name: 'capped',
    concurrency: 1,
    overflows: true,
    matches: (fact) => fact.kind === 'chaos.burst',
    spec: scripted('capped', 2, 150, [{ kind: 'chaos.burst' }], { concurrency: 1, queueCap: 3 }),
  },
];
