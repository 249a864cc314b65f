import { PrismaPg } from '@prisma/adapter-pg';
import { poolerUrl } from './pooler-url';
import { PrismaClient } from './generated/client';

/** Options of {@link createPrismaClient}. */
export interface CreatePrismaClientOptions {
  /** `postgresql://user@host:port/database?…` of the application database. */
  databaseUrl: string;
  /**
   * Most connections the pool opens. Size it per process: the sum over all processes must stay
   * under the server's `max_connections`. @defaultValue 10
   */
  poolMax?: number;
  /** How long a query waits for a free connection before failing, in ms. @defaultValue 5000 */
  connectionTimeoutMillis?: number;
  /** How long an idle connection stays open, in ms. @defaultValue 30000 */
  idleTimeoutMillis?: number;
  /** Shown in `pg_stat_activity.application_name`, e.g. the service name. @defaultValue unset */
  applicationName?: string;
  /** Called when an idle pooled connection fails (server restart, network). @defaultValue ignored */
  onPoolError?: (err: Error) => void;
}

/** Validates one numeric pool option; misconfiguration fails before any connection is made. */
function checkPositiveInteger(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
    throw new Error(`createPrismaClient: ${name} must be a positive integer, got ${value}`);
  }
}

/**
 * Creates the generated Prisma client on `@prisma/adapter-pg` (no native query engine).
 *
 * Pooling is `pg`'s, configured explicitly because `pg`'s defaults (no connect timeout, so a
 * saturated pool or unreachable server makes queries hang) do not suit services. Connections
 * open lazily; `await client.$disconnect()` ends the pool.
 */
export function createPrismaClient(options: CreatePrismaClientOptions): PrismaClient {
  if (!options.databaseUrl) throw new Error('createPrismaClient: databaseUrl is required');
  checkPositiveInteger('poolMax', options.poolMax);
  checkPositiveInteger('connectionTimeoutMillis', options.connectionTimeoutMillis);
  checkPositiveInteger('idleTimeoutMillis', options.idleTimeoutMillis);
  const connectionTimeoutMillis = options.connectionTimeoutMillis ?? 5_000;
  const adapter = new PrismaPg(
    {
      // The adapter names no statement: only the `pgbouncer` flag itself must go.
      connectionString: poolerUrl(options.databaseUrl).connectionString,
      max: options.poolMax ?? 10,
      connectionTimeoutMillis,
      idleTimeoutMillis: options.idleTimeoutMillis ?? 30_000,
      application_name: options.applicationName,
    },
    // The adapter already listens for idle-client errors (so they never crash the process);
    // this only lets the caller see them.
    { onPoolError: options.onPoolError },
  );
  // An interactive transaction waits for a connection as long as a query does, and may run for twice that.
  return new PrismaClient({ adapter, transactionOptions: { maxWait: connectionTimeoutMillis, timeout: 2 * connectionTimeoutMillis } });
}
