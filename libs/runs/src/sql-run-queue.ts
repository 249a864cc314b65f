import type { RunStatus } from '@switchyard/contracts';
import type { SqlRunner } from '@switchyard/db';
import type { Claimed, Ended, RunEnding, RunQueue } from './ports';
import { parseClaimed, parseEnded } from './queue-rows';

/** Options of SqlRunQueue. */
export interface SqlRunQueueOptions {
  /** This process's name: the `lease_owner` of the runs it holds (RUNNER_NAME). */
  owner: string;
  /** Lease length given by a claim or a renewal (RUNNER_LEASE_MS). */
  leaseMs: number;
  /**
   * Where renewals run: a connection of their own, so that a renewal never
   * queues behind the runs' statements in the shared pool (a renewal that
   * waits past the lease loses every run it was for). @defaultValue the queue's
   */
  leases?: SqlRunner;
  /**
   * Where the claims of jobs and of the sweep run: connections of their own, so that admitting
   * runs never queues behind the statements of the thousands already in flight (decision 0053).
   * Endings claim in their own transaction, on the queue's connections. @defaultValue the queue's
   */
  claims?: SqlRunner;
}

/**
 * The run queue on PostgreSQL: each call is one statement calling one of the
 * queue's functions (libs/runs/sql, decision 0009), which take the lane's
 * advisory lock and read fresh snapshots after it. What they return is parsed
 * (libs/contracts run-queue-rows).
 */
export class SqlRunQueue implements RunQueue {
  constructor(
    private readonly sql: SqlRunner,
    private readonly options: SqlRunQueueOptions,
  ) {}

  async claim(runId: string, limit: number): Promise<Claimed> {
    return parseClaimed(await this.call('SELECT run_queue_claim($1::uuid, $2, $3, $4) AS r', runId, limit, this.options.claims), 'run_queue_claim');
  }

  async claimLane(lane: string, limit: number): Promise<Claimed> {
    return parseClaimed(await this.call('SELECT run_queue_claim_lane($1, $2, $3, $4) AS r', lane, limit, this.options.claims), 'run_queue_claim_lane');
  }

  async end(runId: string, ending: RunEnding, limit: number): Promise<Ended> {
    return this.endAs(runId, ending.status, ending.reason, ending.outcome, ending.error, limit);
  }

  async park(runId: string, limit: number): Promise<Ended> {
    return this.endAs(runId, 'awaiting_approval', null, null, null, limit);
  }

  async resume(runId: string): Promise<boolean> {
    const [row] = await this.sql.$queryRawUnsafe<Array<{ resumed: boolean }>>('SELECT run_queue_resume($1::uuid) AS resumed', runId);
    return row?.resumed === true;
  }

  async renew(runIds: readonly string[]): Promise<Set<string>> {
    if (runIds.length === 0) return new Set();
    const rows = await (this.options.leases ?? this.sql).$queryRawUnsafe<Array<{ id: string }>>(
      `UPDATE runs SET lease_until = clock_timestamp() + $3 * interval '1 millisecond'
        WHERE id = ANY($1::uuid[]) AND lease_owner = $2 AND status = 'running'
        RETURNING id::text AS id`,
      [...runIds],
      this.options.owner,
      this.options.leaseMs,
    );
    return new Set(rows.map((row) => row.id));
  }

  async lanesToSweep(queuedOlderThanMs: number): Promise<string[]> {
    const rows = await this.sql.$queryRawUnsafe<Array<{ lane: string }>>(
      `SELECT DISTINCT lane FROM runs
        WHERE (status = 'queued' AND queued_at < clock_timestamp() - $1 * interval '1 millisecond')
           OR (status = 'running' AND lease_until < clock_timestamp())
        LIMIT 1000`,
      queuedOlderThanMs,
    );
    return rows.map((row) => row.lane);
  }

  private async endAs(runId: string, status: RunStatus, reason: string | null, outcome: unknown, error: unknown, limit: number): Promise<Ended> {
    const json = await this.call(
      'SELECT run_queue_end($1::uuid, $2, $5::"RunStatus", $6, $7::jsonb, $8::jsonb, $3, $4) AS r',
      runId,
      limit,
      undefined,
      status,
      reason,
      outcome === null ? null : JSON.stringify(outcome),
      error === null ? null : JSON.stringify(error),
    );
    return parseEnded(json, 'run_queue_end');
  }

  /** Runs one queue function with ($1 subject, $2 owner, $3 lease, $4 limit, …rest), on `runner` or the queue's connections; its JSON, unparsed. */
  private async call(sql: string, subject: string, limit: number, runner: SqlRunner | undefined, ...rest: unknown[]): Promise<unknown> {
    const [row] = await (runner ?? this.sql).$queryRawUnsafe<Array<{ r: unknown }>>(sql, subject, this.options.owner, this.options.leaseMs, Math.max(0, limit), ...rest);
    return row?.r;
  }
}
