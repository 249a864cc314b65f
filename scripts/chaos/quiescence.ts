import type { Client } from 'pg';
import type { Redis } from '@switchyard/redis';
import { waitFor } from '@switchyard/testing';
import { outboxPending, streamsConsumed, unsettledRuns } from './read-state';

/** What quiescence is judged on. */
export interface QuiescenceProbe {
  pg: Client;
  redis: Redis;
  prefix: string;
  workspaceId: string;
}

/** Observations in a row that must find everything quiet: a run ending announces facts still to be consumed. */
const QUIET_IN_A_ROW = 3;

/**
 * Waits until nothing is queued or running, the outbox is relayed and
 * `ingest` and `facts` are read and acknowledged by their groups, three
 * observations in a row. Resolves
 * with how long that took, or undefined after `timeoutMs`.
 */
export async function waitForQuiescence(probe: QuiescenceProbe, timeoutMs: number): Promise<number | undefined> {
  const started = Date.now();
  let quiet = 0;
  try {
    await waitFor(
      async () => {
        const settled =
          (await unsettledRuns(probe.pg, probe.workspaceId)) === 0 && (await outboxPending(probe.pg)) === 0 && (await streamsConsumed(probe.redis, probe.prefix));
        quiet = settled ? quiet + 1 : 0;
        return quiet >= QUIET_IN_A_ROW;
      },
      { timeoutMs, intervalMs: 500, what: 'quiescence' },
    );
    return Date.now() - started;
  } catch {
    return undefined;
  }
}
