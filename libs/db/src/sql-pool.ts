import { Pool } from 'pg';
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

/**
 * Raw SQL on a plain `pg` pool, for hot paths. Prisma's client runs every
 * raw query through its WebAssembly query compiler: about 1 ms of CPU per
 * query on the reference machine, against 0.26 ms for `pg` alone (measured
 * in decision 0015). The matcher and the runner make a few queries per fact
 * and per run, so that difference is most of their CPU at load.
 *
 * Same value mapping as `pg`: `bigint` columns and `count(*)` arrive as
 * strings (callers wrap them in `Number()`), timestamps as Date, json as
 * values, arrays as arrays.
 */
export class SqlPool implements SqlRunner {
  private readonly pool: Pool;

  constructor(options: CreatePrismaClientOptions) {
    if (!options.databaseUrl) throw new Error('SqlPool: databaseUrl is required');
    this.pool = new Pool({
      connectionString: options.databaseUrl,
      max: options.poolMax ?? 10,
      connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5_000,
      idleTimeoutMillis: options.idleTimeoutMillis ?? 30_000,
      application_name: options.applicationName,
    });
    // An idle client that fails (server restart) must not crash the process; the next query reconnects.
    this.pool.on('error', (error) => options.onPoolError?.(error));
  }

  async $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T> {
    return (await this.pool.query(query, values)).rows as T;
  }

  async $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> {
    return (await this.pool.query(query, values)).rowCount ?? 0;
  }

  /** Ends the pool (waits for checked-out clients). */
  async $disconnect(): Promise<void> {
    await this.pool.end();
  }
}
