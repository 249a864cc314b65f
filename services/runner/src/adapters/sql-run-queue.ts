import { RUN_CANCEL_REASONS } from '@switchyard/contracts';
import type { RunStatus } from '@switchyard/contracts';
import type { SqlRunner } from '@switchyard/db';
import type { Claimed, Ended, RunEnding, RunQueue, RunRef, StartedRun } from '../ports';
import { runContextFromRow, type RunContextRow } from './sql-run-context';

/** A run as the queue's functions return it (run_queue_ref). */
interface RefJson {
  id: string;
  workspace_id: string;
  slug: string;
  agent_id: string;
  agent_version: number;
  status: RunStatus;
  event_id: string | null;
  depth: number;
}

/** A started run as the queue's functions return it (run_queue_started). */
type StartedJson = RefJson & RunContextRow & { stop_requested: boolean; paused: boolean };

/** What run_queue_claim, run_queue_claim_lane, run_queue_end (and approvals_park) return. */
export interface ClaimJson {
  started: StartedJson[];
  lost: RefJson[];
  ended?: boolean;
}

function toRef(row: RefJson): RunRef {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    workspaceSlug: row.slug,
    agentId: row.agent_id,
    agentVersion: Number(row.agent_version),
    status: row.status,
    eventId: row.event_id,
    depth: Number(row.depth),
  };
}

function toStarted(row: StartedJson): StartedRun {
  return {
    ...toRef(row),
    context: runContextFromRow(row, row.slug),
    stop: row.stop_requested ? RUN_CANCEL_REASONS.stopped : row.paused ? RUN_CANCEL_REASONS.agentsPaused : null,
  };
}

export function toClaimed(json: ClaimJson): Claimed {
  return { started: json.started.map(toStarted), lost: json.lost.map(toRef) };
}

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
}

/**
 * The run queue on PostgreSQL: each call is one statement calling one of the
 * queue's functions (migration `run_queue`, decision 0009), which take the
 * lane's advisory lock and read fresh snapshots after it.
 */
export class SqlRunQueue implements RunQueue {
  constructor(
    private readonly sql: SqlRunner,
    private readonly options: SqlRunQueueOptions,
  ) {}

  async claim(runId: string, limit: number): Promise<Claimed> {
    return toClaimed(await this.call('SELECT run_queue_claim($1::uuid, $2, $3, $4) AS r', runId, limit));
  }

  async claimLane(lane: string, limit: number): Promise<Claimed> {
    return toClaimed(await this.call('SELECT run_queue_claim_lane($1, $2, $3, $4) AS r', lane, limit));
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
      status,
      reason,
      outcome === null ? null : JSON.stringify(outcome),
      error === null ? null : JSON.stringify(error),
    );
    return { ...toClaimed(json), ended: json.ended === true };
  }

  /** Runs one queue function with ($1 subject, $2 owner, $3 lease, $4 limit, …rest). */
  private async call(sql: string, subject: string, limit: number, ...rest: unknown[]): Promise<ClaimJson> {
    const [row] = await this.sql.$queryRawUnsafe<Array<{ r: ClaimJson }>>(sql, subject, this.options.owner, this.options.leaseMs, Math.max(0, limit), ...rest);
    return row!.r;
  }
}
