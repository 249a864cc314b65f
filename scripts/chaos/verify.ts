import type { Client } from 'pg';
import type { Redis } from '@switchyard/redis';
import { checkAcknowledgedStored, checkAllAcknowledged, checkApiListing, checkNoDuplicateFacts, checkNoUnacknowledgedStored, checkSeqDense } from './fact-checks';
import type { FactLoadResult } from './fact-load';
import { checkKills, checkNoCrash, checkNoDeadLetters, checkQuiescence } from './harness-checks';
import type { PlannedKill } from './kill-plan';
import type { KillRecord } from './kills';
import type { UnexpectedExit } from './mesh';
import { deadLetterCount, listFactIds, readFacts, readRuns } from './read-state';
import type { ChaosFigures } from './report';
import type { CheckResult } from './rows';
import { checkConcurrency, checkOneRunPerMatch, checkRunFacts, checkRunnerLost, checkSettled, checkSomeDropped } from './run-checks';
import { offeredFact, SCENARIO_AGENTS } from './scenario';

/** Everything the verification reads from and knows about the run. */
export interface VerifyInput {
  pg: Client;
  redis: Redis;
  prefix: string;
  gatewayUrl: string;
  token: string;
  workspace: string;
  workspaceId: string;
  loadId: string;
  /** Agent ids by scenario name. */
  agentIds: ReadonlyMap<string, string>;
  load: FactLoadResult;
  /** When the load began (kill times are shown from it). */
  loadStartedAt: number;
  plan: readonly PlannedKill[];
  kills: readonly KillRecord[];
  exits: readonly UnexpectedExit[];
  quiescenceMs: number | undefined;
  quiesceTimeoutMs: number;
}

/** Which (agent, fact) pairs the harness expects a run for: its own matching over the acknowledged facts. */
export function expectedPairs(load: Pick<FactLoadResult, 'acknowledged'>, loadId: string, agentIds: ReadonlyMap<string, string>): Map<string, Set<string>> {
  const pairs = new Map<string, Set<string>>();
  for (const agent of SCENARIO_AGENTS) {
    const facts = new Set<string>();
    for (const [n, id] of load.acknowledged) if (agent.matches(offeredFact(n, loadId))) facts.add(id);
    pairs.set(agentIds.get(agent.name)!, facts);
  }
  return pairs;
}

/** Reads the end state from PostgreSQL, Redis and the public API and runs every check on it. */
export async function verify(input: VerifyInput): Promise<{ checks: CheckResult[]; figures: Omit<ChaosFigures, 'rate' | 'durationS' | 'manualRuns'> }> {
  const { load, kills } = input;
  const stored = await readFacts(input.pg, input.workspaceId);
  const runs = await readRuns(input.pg, input.workspaceId);
  const apiIds = await listFactIds(input.gatewayUrl, input.token, input.workspace);
  const deadLetters = await deadLetterCount(input.pg);
  const runnerKills = kills.filter((kill) => kill.target.startsWith('runner')).map((kill) => kill.at);
  const runsOf = (name: string) => runs.filter((run) => run.agentId === input.agentIds.get(name));
  const checks: CheckResult[] = [
    checkQuiescence(input.quiescenceMs, input.quiesceTimeoutMs),
    checkKills(input.plan, kills),
    checkNoCrash(input.exits),
    checkAllAcknowledged(load),
    checkAcknowledgedStored(load, stored),
    checkNoUnacknowledgedStored(load, stored),
    checkNoDuplicateFacts(stored),
    checkSeqDense(stored),
    checkApiListing(apiIds, stored),
    checkOneRunPerMatch(expectedPairs(load, input.loadId, input.agentIds), runs, new Map([...input.agentIds].map(([name, id]) => [id, name]))),
    ...SCENARIO_AGENTS.filter((agent) => agent.overflows).map((agent) => checkSomeDropped(agent.name, runsOf(agent.name))),
    checkSettled(runs),
    ...SCENARIO_AGENTS.map((agent) => checkConcurrency(agent.name, agent.concurrency, runsOf(agent.name), runnerKills)),
    checkRunFacts(runs, stored.filter((fact) => fact.kind.startsWith('agent.run.'))),
    checkRunnerLost(runs, runnerKills),
    checkNoDeadLetters(deadLetters),
  ];
  const byAgent: Record<string, Record<string, number>> = {};
  for (const agent of SCENARIO_AGENTS) {
    const counts: Record<string, number> = {};
    for (const run of runsOf(agent.name)) {
      const label = run.reason && run.status !== 'dropped' ? `${run.status}:${run.reason}` : run.status;
      counts[label] = (counts[label] ?? 0) + 1;
    }
    byAgent[agent.name] = counts;
  }
  return {
    checks,
    figures: {
      offered: load.offered,
      acknowledged: load.acknowledged.size,
      storedLoadFacts: stored.filter((fact) => fact.n !== null).length,
      storedFacts: stored.length,
      answers: load.answers,
      runs: byAgent,
      kills: kills.map((kill) => `${kill.target} at +${((kill.at - input.loadStartedAt) / 1000).toFixed(1)} s${kill.backAt ? ` (back in ${((kill.backAt - kill.at) / 1000).toFixed(1)} s)` : ''}${kill.note ? ` [${kill.note}]` : ''}`),
      loadElapsedS: load.elapsedMs / 1000,
      quiescenceS: input.quiescenceMs === undefined ? undefined : input.quiescenceMs / 1000,
    },
  };
}
