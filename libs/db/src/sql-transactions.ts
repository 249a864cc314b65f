import { Pool, type PoolClient } from 'pg';
import type { CreatePrismaClientOptions } from './prisma-client';
import type { SqlRunner } from './sql-pool';

/** Runs a function in one database transaction; what it rejects with rolls the transaction back. */
export interface SqlTransactions {
  transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T>;
}

/** A checked-out connection as a SqlRunner. */
function runnerOf(client: PoolClient): SqlRunner {
  return {
    $queryRawUnsafe: async <T>(query: string, ...values: unknown[]) => (await client.query(query, values)).rows as T,
    $executeRawUnsafe: async (query: string, ...values: unknown[]) => (await client.query(query, values)).rowCount ?? 0,
  };
}

/**
 * Short transactions of raw SQL on a plain `pg` pool (BEGIN … COMMIT on one
 * connection), and single statements outside them: for the approvals'
 * decisions and expiries, where an interactive Prisma transaction costs
 * several times the statements it runs (decision 0015). Same value mapping as
 * SqlPool. Never hold one open across a model or tool call.
 */
export class SqlTransactionPool implements SqlRunner, SqlTransactions {
  private readonly pool: Pool;

  constructor(options: CreatePrismaClientOptions) {
    if (!options.databaseUrl) throw new Error('SqlTransactionPool: databaseUrl is required');
    this.pool = new Pool({
      connectionString: options.databaseUrl,
      max: options.poolMax ?? 5,
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

  async transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: unknown;
    try {
      await client.query('BEGIN');
      const result = await work(runnerOf(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => (broken = rollbackError));
      throw error;
    } finally {
      // A connection whose ROLLBACK failed is in an unknown state: dropped, not reused.
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  /** Ends the pool (waits for checked-out clients). */
  async $disconnect(): Promise<void> {
    await this.pool.end();
  }
}
