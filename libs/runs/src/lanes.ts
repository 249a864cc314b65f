/**
 * Lane names (decision 0009): the runs of one lane execute at most its concurrency at a time,
 * in line order. Built here only; in SQL the lane of a run is `runs.lane`, an agent's lane is the
 * default of the runs trigger (runs_default_lane) and a teammate's is built by teammate_wake.
 */

/** The lane of an agent's trigger, manual, retry and delegated runs: `flow.concurrency` of the agent at once. */
export function agentLane(agentId: string): string {
  return `agent:${agentId}`;
}

/** The lane of a teammate's turns: one at a time, in its session (decision 0035). */
export function sessionLane(sessionId: string): string {
  return `session:${sessionId}`;
}

/** The lane of a try run: its own, so a try never waits behind the agent's runs (decision 0027). */
export function tryLane(runId: string): string {
  return `try:${runId}`;
}
