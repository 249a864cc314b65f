import { createHash } from 'node:crypto';
import { Pool, type QueryConfig } from 'pg';
import { poolerUrl } from './pooler-url';
import type { CreatePrismaClientOptions } from './prisma-client';

/**
 * The raw-SQL surface the services' stores use. `PrismaClient` has it, and so
 * has {@link SqlPool}: a store written against it runs on either.
 */
export interface SqlRunner {
  /** Rows of a query with `$1…` parameters. */
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  /** Rows affected by a statement with `$1…` parameters. */
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

/** Runs a function in one database transaction; what it rejects with rolls the transaction back. */
export interface SqlTransactions {
  transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T>;
}

/** Distinct statement texts a pool prepares; the stores have a few dozen. */
export const MAX_PREPARED = 256;

/**
 * Raw SQL on a plain `pg` pool, for hot paths: Prisma's client runs every raw
 * query through its WebAssembly query compiler, which costs several times the
 * query itself (decision 0015; figures in docs/perf/).
 *
 * Statements are prepared: each distinct text gets a name (a hash of it), so a
 * connection parses and plans it once and then only binds and executes. Every
 * connection sets `plan_cache_mode = force_generic_plan`: by default PostgreSQL
 * may keep planning a statement of CTEs and scalar subqueries anew on every
 * execution. The stores' statements are written so that their generic plan uses
 * their indexes for any value (decision 0017). A DATABASE_URL that sets `options`
 * itself keeps its own. Past {@link MAX_PREPARED} distinct texts the rest go
 * unnamed, so a caller that built texts from data could not grow every
 * connection's statement cache without bound.
 *
 * Same value mapping as `pg`: `bigint` columns and `count(*)` arrive as
 * strings (callers wrap them in `Number()`), timestamps as Date, json as
 * values, arrays as arrays.
 */
export class SqlPool implements SqlRunner, SqlTransactions {
  private readonly pool: Pool;
  private readonly names = new Map<string, string>();
  /** Behind a transaction pooler (`?pgbouncer=true`): statements go unnamed, no startup options. */
  private readonly pooled: boolean;

  constructor(options: CreatePrismaClientOptions) {
    if (!options.databaseUrl) throw new Error('SqlPool: databaseUrl is required');
    const { connectionString, transactionPooler } = poolerUrl(options.databaseUrl);
    this.pooled = transactionPooler;
    this.pool = new Pool({
      connectionString,
      max: options.poolMax ?? 10,
      connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5_000,
      idleTimeoutMillis: options.idleTimeoutMillis ?? 30_000,
      application_name: options.applicationName,
      // PgBouncer refuses startup options; behind it, set plan_cache_mode on the role instead.
      ...(transactionPooler ? {} : { options: '-c plan_cache_mode=force_generic_plan' }),
    });
    // An idle client that fails (server restart) must not crash the process; the next query reconnects.
    this.pool.on('error', (error) => options.onPoolError?.(error));
  }

  async $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T> {
    return (await this.pool.query(this.statement(query, values))).rows as T;
  }

  async $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> {
    return (await this.pool.query(this.statement(query, values))).rowCount ?? 0;
  }

  /**
   * Runs `work` in one transaction on one connection: committed when it
   * resolves, rolled back when it throws (the error is rethrown). Statements
   * are prepared as on the pool. Never hold it across a model or tool call.
   */
  async transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // pg-pool listens for a checked-out client's errors no more: a backend terminated between two
    // statements (a restart, pg_terminate_backend) would be an unhandled 'error' that ends the
    // process. Noted here, it fails the next statement and the connection is discarded.
    let lost: unknown;
    const onError = (error: unknown) => {
      lost = error;
    };
    client.on('error', onError);
    const tx: SqlRunner = {
      $queryRawUnsafe: async <R = unknown>(query: string, ...values: unknown[]) => (await client.query(this.statement(query, values))).rows as R,
      $executeRawUnsafe: async (query: string, ...values: unknown[]) => (await client.query(this.statement(query, values))).rowCount ?? 0,
    };
    let failed = false;
    try {
      await client.query('BEGIN');
      const result = await work(tx);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      failed = true;
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.off('error', onError);
      // A connection whose rollback may not have gone through, or that failed, is not handed out again.
      client.release(failed || lost !== undefined ? true : undefined);
    }
  }

  /** The query as a named (prepared) statement while fewer than MAX_PREPARED texts are named. */
  private statement(text: string, values: unknown[]): QueryConfig {
    // A name is prepared on one server session; behind a transaction pooler the next use may be on another.
    if (this.pooled) return { text, values };
    let name = this.names.get(text);
    if (name === undefined && this.names.size < MAX_PREPARED) {
      name = `sy_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
      this.names.set(text, name);
    }
    return name === undefined ? { text, values } : { name, text, values };
  }

  /** Ends the pool (waits for checked-out clients). */
  async $disconnect(): Promise<void> {
    await this.pool.end();
  }
}
