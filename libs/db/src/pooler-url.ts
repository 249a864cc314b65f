/** A DATABASE_URL read for what a pool may rely on. */
export interface PoolerUrl {
  /** The URL without the `pgbouncer` parameter (PostgreSQL would not know it). */
  connectionString: string;
  /**
   * True with `?pgbouncer=true`: the URL names a pooler in transaction mode, where a
   * session's state does not outlive a transaction. Then no statement is named
   * (prepared once per session) and no startup `options` are sent (PgBouncer refuses
   * them). Prisma's own convention for the same case.
   */
  transactionPooler: boolean;
}

/** Reads `?pgbouncer=true` off a PostgreSQL URL (docs/scaling.md, decision 0061). */
export function poolerUrl(databaseUrl: string): PoolerUrl {
  const url = new URL(databaseUrl);
  const flag = url.searchParams.get('pgbouncer');
  if (flag === null) return { connectionString: databaseUrl, transactionPooler: false };
  url.searchParams.delete('pgbouncer');
  return { connectionString: url.toString(), transactionPooler: flag === 'true' };
}
