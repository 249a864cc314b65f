import { Client } from 'pg';
import type { AcceptedFact } from '@switchyard/contracts';
import { FactRecorder, type FactPublisher, type FactToRecord } from './fact-recorder';
import { failedForARow, factOf, publishStored, ROW_COLUMNS, STORE_ROUND_SQL, type OutboxRow, type RelayLog, type StoredOutboxRow } from './outbox-rows';
import { SqlFactStore, type AppendOutcome } from './sql-fact-store';
import type { SqlRunner } from './sql-pool';

export type { RelayLog } from './outbox-rows';

/**
 * Where relayed facts go: stored in `platform_events` and published on
 * `facts` (FactRecorder), one outcome per fact in order.
 */
export interface FactSink {
  record(items: readonly FactToRecord[]): Promise<AppendOutcome[]>;
}

/** Options of OutboxRelay. */
export interface OutboxRelayOptions {
  /** Reads, stores and deletes outbox rows. */
  sql: SqlRunner;
  /** For the relay's own connection: it LISTENs and holds the leadership lock. */
  databaseUrl: string;
  /** Where stored facts are published: the `facts` stream (RedisFactPublisher of @switchyard/redis). */
  publisher: FactPublisher;
  log: RelayLog;
  /** Rows relayed per round. @defaultValue 500 */
  batchSize?: number;
  /** How often a standby tries to lead, and a leader drains without being woken. @defaultValue 1000 */
  pollMs?: number;
  /**
   * After a notification, wait this long before draining, so that the commits
   * of that moment go as one round (one statement and one XADD call), not
   * one each. @defaultValue 5
   */
  lingerMs?: number;
  /** Called with how many facts each round settled (metrics). */
  onRelayed?: (count: number) => void;
}

/** The channel the outbox's insert trigger notifies (migration fact_outbox). */
export const OUTBOX_CHANNEL = 'fact_outbox';

/**
 * Writes facts to the outbox with the caller's runner — a transaction's
 * client, so that they commit (or not) with the change they announce. For
 * the platform's facts other than run statuses, which the `runs` triggers
 * record by themselves.
 */
export async function recordFacts(tx: SqlRunner, items: ReadonlyArray<{ fact: AcceptedFact; correlationId: string }>): Promise<void> {
  if (items.length === 0) return;
  await tx.$executeRawUnsafe(OUTBOX_INSERT_SQL, ...outboxParams(items));
}

/** The outbox insert of recordFacts, its parameters $1–$11 (outboxParams): for a statement that records facts beside its own change. */
export const OUTBOX_INSERT_SQL = `INSERT INTO fact_outbox (id, workspace_id, kind, subject_type, subject_id, actor, payload, caused_by, idempotency_key, ts, correlation_id)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::jsonb[], $8::jsonb[], $9::text[], $10::timestamptz[], $11::text[])`;

/** OUTBOX_INSERT_SQL's parameters for these facts. */
export function outboxParams(items: ReadonlyArray<{ fact: AcceptedFact; correlationId: string }>): unknown[] {
  const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));
  return [
    items.map(({ fact }) => fact.id),
    items.map(({ fact }) => fact.workspaceId),
    items.map(({ fact }) => fact.kind),
    items.map(({ fact }) => fact.subject.type),
    items.map(({ fact }) => fact.subject.id),
    items.map(({ fact }) => json(fact.actor)),
    items.map(({ fact }) => JSON.stringify(fact.payload)),
    items.map(({ fact }) => json(fact.causedBy)),
    items.map(({ fact }) => fact.idempotencyKey ?? null),
    items.map(({ fact }) => fact.ts),
    items.map(({ correlationId }) => correlationId),
  ];
}

/**
 * Hands outbox rows to the sink in their order; returns the ids of the ones
 * it settled (stored, stored before, or a duplicate of a stored fact's key),
 * for the caller to delete. A row that does not parse as a fact, or that
 * PostgreSQL refuses to store, is kept (visible in the table and the log
 * until someone looks).
 */
async function relayRows(sink: FactSink, log: RelayLog, rows: readonly OutboxRow[]): Promise<string[]> {
  const items: FactToRecord[] = [];
  for (const row of rows) {
    const fact = factOf(row);
    if (fact) items.push({ fact, correlationId: row.correlation_id });
    else log.error({ outboxId: row.id, kind: row.kind }, 'outbox row does not parse as a fact; left in the outbox');
  }
  if (items.length === 0) return [];
  const outcomes = await sink.record(items);
  const settled: string[] = [];
  outcomes.forEach((outcome, index) => {
    const { fact } = items[index]!;
    if (outcome.status === 'refused' || outcome.status === 'unknown_workspace') {
      log.error({ outboxId: fact.id, kind: fact.kind, outcome }, 'outbox row not stored; left in the outbox');
    } else settled.push(fact.id);
  });
  return settled;
}

const DELETE_SQL = 'DELETE FROM fact_outbox WHERE id = ANY($1::uuid[])';

/**
 * Relays the given facts now, with every row ahead of them, in order: what a
 * writer calls right after committing a change a client may act on at once
 * (an agent enabled, the kill switch), so that the client's next fact comes
 * after the change's in the fact order, and the change's after every earlier
 * one. Rows relayed here and by the leading relay too are one fact each
 * (their ids); whatever this cannot relay the leading relay moves later.
 */
export async function flushFacts(sql: SqlRunner, sink: FactSink, log: RelayLog, ids: readonly string[], batchSize = 500): Promise<void> {
  if (ids.length === 0) return;
  for (;;) {
    const rows = await sql.$queryRawUnsafe<OutboxRow[]>(ROWS_UP_TO_SQL, [...ids], batchSize);
    const settled = rows.length === 0 ? [] : await relayRows(sink, log, rows);
    if (settled.length > 0) await sql.$executeRawUnsafe(DELETE_SQL, settled);
    if (settled.length === 0 || rows.length < batchSize) return;
  }
}

/** The advisory lock whose holder is the one relay that drains the outbox. */
const LEADER_LOCK_SQL = `SELECT pg_try_advisory_lock(hashtext('switchyard:fact_outbox')) AS leader`;

/** The next rows in order, in the statement that deletes the ones the last round settled ($2): a round resolved fact by fact. */
const DRAIN_SQL = `WITH settled AS (DELETE FROM fact_outbox WHERE id = ANY($2::uuid[]))
  SELECT ${ROW_COLUMNS} WHERE o.id <> ALL($2::uuid[]) ORDER BY o.position LIMIT $1`;

/** The rows up to the last of some ids, in order: a flush relays what is ahead of its own facts first. */
const ROWS_UP_TO_SQL = `SELECT ${ROW_COLUMNS}
  WHERE o.position <= (SELECT max(position) FROM fact_outbox WHERE id = ANY($1::uuid[]))
  ORDER BY o.position LIMIT $2`;

/**
 * Stores the facts of the outbox and publishes them, oldest first, and
 * deletes them once published. One relay drains at a time, whichever
 * process holds the outbox's advisory lock on its own connection (the others
 * stand by and take over when that connection goes), so a run's facts are
 * stored in the order its changes were made. It drains when the outbox's
 * trigger notifies a commit, and every `pollMs` besides. A round is one
 * statement (STORE_ROUND_SQL: it deletes what the last round published,
 * takes the next rows and stores their facts) and one publish; the last
 * round's rows wait for the next notified round, or the next poll when no
 * commit comes (close deletes too): no wake-up of its own for the delete. A
 * relay that dies before that delete relays those rows again: found stored by
 * their id, they are published again with their seqs (consumers dedupe by id).
 * A round whose statement fails for one of its rows (a key another fact
 * holds, a value PostgreSQL refuses) is resolved fact by fact (FactRecorder).
 */
export class OutboxRelay {
  private client: Client | undefined;
  private leader = false;
  private closing = false;
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private again = false;
  private lingering: NodeJS.Timeout | undefined;
  /** Rows stored and published, deleted with the next round's read. */
  private settled: string[] = [];
  private readonly batchSize: number;
  private readonly pollMs: number;
  /** Stores and publishes the rows of a round resolved fact by fact. */
  private readonly recorder: FactRecorder;

  constructor(private readonly options: OutboxRelayOptions) {
    this.recorder = new FactRecorder(new SqlFactStore(options.sql), options.publisher);
    this.batchSize = options.batchSize ?? 500;
    this.pollMs = options.pollMs ?? 1000;
  }

  /** Connects, tries to lead, and keeps trying (or draining) every pollMs until closed. */
  async start(): Promise<void> {
    await this.connect();
    // What waited while no relay ran (every service was down) goes now, not a poll later.
    this.drainLogged();
    this.schedule();
  }

  /** Whether this relay holds the lock: the one process that drains (and, in the event-log, runs the ops watcher). */
  get isLeader(): boolean {
    return this.leader;
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.timer);
    clearTimeout(this.lingering);
    // A drain that failed was logged where it ran; closing must not fail for it.
    await this.draining?.catch(() => undefined);
    // What the last round settled goes now, or a successor would publish it again.
    if (this.leader && this.settled.length > 0) {
      await this.options.sql.$executeRawUnsafe(DELETE_SQL, this.settled).then(
        () => void (this.settled = []),
        (error: unknown) => this.options.log.warn({ err: error }, 'relayed outbox rows not deleted; a successor publishes them again'),
      );
    }
    const client = this.client;
    this.client = undefined;
    this.leader = false;
    // Ending the session releases the advisory lock: a standby takes over at its next try.
    await client?.end().catch(() => undefined);
  }

  /**
   * Relays until the outbox is empty (or this relay is not the leader);
   * concurrent calls share one drain, and a call during a drain makes it go
   * round once more.
   */
  drain(): Promise<void> {
    if (this.draining) {
      this.again = true;
      return this.draining;
    }
    // The last round's rows wait for the next round's statement: a notified one, or the poll's.
    this.draining = this.drainRounds().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  /** A drain started by a timer or a notification: its failure is logged, and the next poll retries. */
  private drainLogged(): void {
    this.drain().catch((error: unknown) => this.options.log.warn({ err: error }, 'outbox drain failed; retried'));
  }

  private async drainRounds(): Promise<void> {
    do {
      this.again = false;
      while (this.leader && !this.closing && (await this.round()) === this.batchSize);
    } while (this.again && this.leader && !this.closing);
  }

  /** One round: delete what the last one settled, store a batch in order, then publish it. Returns the rows taken. */
  private async round(): Promise<number> {
    const { sql, publisher, log } = this.options;
    let rows: StoredOutboxRow[];
    try {
      rows = await sql.$queryRawUnsafe<StoredOutboxRow[]>(STORE_ROUND_SQL, this.batchSize, this.settled);
    } catch (error) {
      if (!failedForARow(error)) throw error;
      return this.resolvedRound();
    }
    this.settled = [];
    if (rows.length === 0) return 0;
    this.settled = await publishStored(publisher, log, rows);
    this.options.onRelayed?.(this.settled.length);
    return rows.length;
  }

  /** A round whose batch cannot be stored in one statement: read, then stored and published fact by fact against what is stored. */
  private async resolvedRound(): Promise<number> {
    const { sql, log } = this.options;
    const rows = await sql.$queryRawUnsafe<OutboxRow[]>(DRAIN_SQL, this.batchSize, this.settled);
    this.settled = [];
    if (rows.length === 0) return 0;
    this.settled = await relayRows(this.recorder, log, rows);
    this.options.onRelayed?.(this.settled.length);
    return rows.length;
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.options.databaseUrl, application_name: 'outbox-relay' });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    client.on('notification', () => this.notified());
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      this.client = client;
      await this.tryLead();
    } catch (error) {
      this.options.log.warn({ err: error }, 'outbox relay could not connect; retried');
      await client.end().catch(() => undefined);
    }
  }

  /** A commit wrote outbox rows: drain once the linger is over (one timer for every notification meanwhile). */
  private notified(): void {
    if (this.lingering || this.closing) return;
    this.lingering = setTimeout(() => {
      this.lingering = undefined;
      this.drainLogged();
    }, this.options.lingerMs ?? 5);
  }

  private async tryLead(): Promise<void> {
    if (!this.client || this.leader) return;
    const { rows } = await this.client.query<{ leader: boolean }>(LEADER_LOCK_SQL);
    this.leader = rows[0]?.leader === true;
    if (this.leader) this.options.log.info({}, 'outbox relay leading');
  }

  /** The relay's connection went: it leads no more (PostgreSQL released the lock with it). */
  private lost(client: Client, error?: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.leader = false;
    if (!this.closing) this.options.log.warn({ err: error }, 'outbox relay connection lost; reconnecting');
    client.end().catch(() => undefined);
  }

  /** Every pollMs: reconnect if needed, try to lead, drain what no notification announced. */
  private schedule(): void {
    this.timer = setTimeout(() => {
      void (async () => {
        try {
          if (!this.client) await this.connect();
          else await this.tryLead();
          await this.drain();
        } catch (error) {
          this.options.log.warn({ err: error }, 'outbox relay round failed; retried');
        }
        if (!this.closing) this.schedule();
      })();
    }, this.pollMs);
    this.timer.unref();
  }
}
