import { RunQueueEndRowSchema, type Fact, type TriggerFilter } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { factFromRow, type FactRow, type SqlPool } from '@switchyard/db';
import type { Claimed, RunRef } from '../ports';
import { claimedFromRow, parseRow } from '../queue-rows';
import type { SqlRunQueueOptions } from '../sql-run-queue';
import { waitPredicate } from './wait-match';

/** A `wait_for_event` call to park on. */
export interface WaitRequest {
  /** The model's id of the call: one wait per run and call. */
  toolCallId: string;
  kind: string;
  filter: TriggerFilter | null;
  timeoutMs: number;
  /** The workspace's last seq when the tool was called (currentSeq): facts after it resolve the wait. */
  afterSeq: number;
}

/** What a wait's park did: the run parked (with the claim of its lane made in the same transaction), or a fact recorded since the call already matched and the run goes on. */
export type WaitParkOutcome = { type: 'parked'; claim: Claimed } | { type: 'matched'; fact: Fact } | { type: 'not_held' };

/** Facts read per round of the park's check; a wait finds its fact among the first in nearly every case. */
const CHECK_PAGE = 500;

/**
 * Parks runs on waits for a fact (decision 0055), in one transaction:
 * `run_wait_check` (the workspace's seq row share-locked, then the facts
 * recorded since the call, matched here by the trigger language), then —
 * when none matched — `run_wait_park` (the run `awaiting_event`, no lease,
 * the pending wait row, the lane's next runs claimed). The share lock orders
 * the park with every fact's append, so a fact is either seen by the check
 * or committed after the wait and resolved by the matcher: no lost wake-up.
 */
export class SqlWaitParking {
  constructor(
    private readonly pool: SqlPool,
    private readonly queue: SqlRunQueueOptions,
  ) {}

  /** The workspace's last seq: what a wait called now is after. */
  async currentSeq(workspaceId: string): Promise<number> {
    const [row] = await this.pool.$queryRawUnsafe<Array<{ last_seq: bigint | string }>>(
      'SELECT last_seq FROM workspace_event_seq WHERE workspace_id = $1::uuid',
      workspaceId,
    );
    return Number(row?.last_seq ?? 0);
  }

  async park(run: RunRef, wait: WaitRequest, limit: number): Promise<WaitParkOutcome> {
    const matches = waitPredicate(wait);
    return this.pool.transaction(async (tx) => {
      let after = wait.afterSeq;
      for (;;) {
        const rows = await tx.$queryRawUnsafe<FactRow[]>(
          `SELECT id::text AS id, $1::text AS workspace_id, seq, kind, subject_type, subject_id, actor, stated_actor, payload, caused_by, idempotency_key, ts
             FROM run_wait_check($1::uuid, $2::bigint, $3::int)`,
          run.workspaceId,
          after,
          CHECK_PAGE,
        );
        const fact = rows.map((row) => factFromRow(row, run.workspaceSlug)).find(matches);
        if (fact) return { type: 'matched', fact } as const;
        if (rows.length < CHECK_PAGE) break;
        after = Number(rows.at(-1)!.seq);
      }
      // The deadline is the database's clock plus the timeout, as the timeout's resolve reads it.
      const row = { id: newId(), toolCallId: wait.toolCallId, kind: wait.kind, filter: wait.filter, afterSeq: wait.afterSeq, timeoutMs: wait.timeoutMs };
      const [result] = await tx.$queryRawUnsafe<Array<{ r: unknown }>>(
        'SELECT run_wait_park($1::uuid, $2, $3::jsonb, $4, $5) AS r',
        run.id,
        this.queue.owner,
        JSON.stringify(row),
        this.queue.leaseMs,
        Math.max(0, limit),
      );
      const parked = parseRow(RunQueueEndRowSchema, result?.r, 'run_wait_park');
      if (!parked.ended) return { type: 'not_held' } as const;
      return { type: 'parked', claim: claimedFromRow(parked) } as const;
    });
  }
}
