import type { TranscriptEntryType } from '@switchyard/contracts';
import type { SqlRunner } from '@switchyard/db';

/** A transcript row as a flush writes it (content already JSON). */
export interface BatchedEntry {
  sessionId: string;
  seq: number;
  workspaceId: string;
  runId: string;
  type: TranscriptEntryType;
  content: string;
}

/** A run's stop flags as the ledger holds them. */
export interface StopFlags {
  stopRequested: boolean;
  paused: boolean;
}

/** Batches of this many parts at most (a part: one run's flush or stop read). */
const MAX_PARTS = 1000;

/**
 * The step boundary's statement for every run whose boundary is waiting:
 * the transcript rows of their flushes in one INSERT, and their stop flags
 * (`runs.stop_requested`, the workspace's `agents_paused`) in the same
 * statement — one transaction, one commit, one round trip for all.
 */
const BATCH_SQL = `
WITH written AS (
  INSERT INTO transcript_entries (session_id, seq, workspace_id, run_id, type, content)
  SELECT session_id, seq, workspace_id, run_id, type, content
    FROM unnest($1::uuid[], $2::int[], $3::uuid[], $4::uuid[], $5::text[], $6::jsonb[]) AS t(session_id, seq, workspace_id, run_id, type, content))
SELECT r.id::text AS id, r.stop_requested, coalesce(s.agents_paused, false) AS paused
  FROM runs r LEFT JOIN workspace_settings s ON s.workspace_id = r.workspace_id
 WHERE r.id = ANY($7::uuid[])`;

interface Part {
  entries: BatchedEntry[];
  /** The run whose stop flags this part reads, if any. */
  stopOf?: string;
  resolve: (flags: StopFlags | undefined) => void;
  reject: (error: unknown) => void;
}

/** Options of {@link SqlStepBatch}. */
export interface SqlStepBatchOptions {
  /**
   * Batches out at once. A part waits only while every one of them is out,
   * so a lone run's boundary is written at once; under load the parts that
   * arrive meanwhile go together in the next. @defaultValue 4
   */
  inFlight?: number;
}

/**
 * Group commit of the runs' step boundaries (decision 0053): each run in
 * flight writes its transcript and reads its stop flags at every step
 * boundary, and with a thousand runs in flight one statement each queued
 * for a pooled connection and paid a commit of its own. Here the parts of
 * every run that reached a boundary meanwhile go out as one statement
 * (BATCH_SQL). A batch that fails is tried again part by part, so one run's
 * refused rows (its `(session_id, seq)` taken) fail that run's flush only;
 * a failed statement writes nothing, so nothing is written twice.
 */
export class SqlStepBatch {
  private queue: Part[] = [];
  private out = 0;
  private scheduled = false;
  private readonly inFlight: number;

  constructor(
    private readonly sql: SqlRunner,
    options: SqlStepBatchOptions = {},
  ) {
    this.inFlight = options.inFlight ?? 4;
  }

  /** Writes the entries; resolves once they are committed. */
  async write(entries: BatchedEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.enqueue({ entries });
  }

  /** The run's stop flags, read with the next batch; undefined for a run not in the ledger. */
  stopFlags(runId: string): Promise<StopFlags | undefined> {
    return this.enqueue({ entries: [], stopOf: runId });
  }

  private enqueue(part: Omit<Part, 'resolve' | 'reject'>): Promise<StopFlags | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...part, resolve, reject });
      this.schedule();
    });
  }

  /** Drains on the next turn of the event loop: the parts a boundary adds together (flush and stop read) go in one batch. */
  private schedule(): void {
    if (this.scheduled || this.out >= this.inFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.out < this.inFlight && this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_PARTS);
        this.out += 1;
        void this.send(batch).finally(() => {
          this.out -= 1;
          this.schedule();
        });
      }
    });
  }

  private async send(batch: Part[]): Promise<void> {
    try {
      const flags = await this.statement(batch);
      for (const part of batch) part.resolve(part.stopOf === undefined ? undefined : flags.get(part.stopOf));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      // Whose part failed it is not known: each alone, so only that one fails.
      await Promise.all(batch.map((part) => this.send([part])));
    }
  }

  private async statement(batch: Part[]): Promise<Map<string, StopFlags>> {
    const entries = batch.flatMap((part) => part.entries);
    const stopOf = batch.flatMap((part) => (part.stopOf === undefined ? [] : [part.stopOf]));
    const rows = await this.sql.$queryRawUnsafe<Array<{ id: string; stop_requested: boolean; paused: boolean }>>(
      BATCH_SQL,
      entries.map((entry) => entry.sessionId),
      entries.map((entry) => entry.seq),
      entries.map((entry) => entry.workspaceId),
      entries.map((entry) => entry.runId),
      entries.map((entry) => entry.type),
      entries.map((entry) => entry.content),
      stopOf,
    );
    return new Map(rows.map((row) => [row.id, { stopRequested: row.stop_requested, paused: row.paused }]));
  }
}
