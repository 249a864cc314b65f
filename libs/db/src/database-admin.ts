import pg from 'pg';

/** The database every PostgreSQL server has, used to create and drop the others. */
const MAINTENANCE_DATABASE = 'postgres';

/** PostgreSQL error code for CREATE DATABASE of a name that exists. */
const DUPLICATE_DATABASE = '42P04';

/** The database name in a `postgresql://` URL (the path without its slash). */
export function databaseNameOf(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
  if (name === '') throw new Error('the database URL names no database');
  return name;
}

/** The same server, user and parameters as `databaseUrl`, with another database. */
export function withDatabaseName(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

/** Quotes a PostgreSQL identifier (`"a""b"`), for the statements that take no parameters. */
function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Runs `fn` on a short-lived connection to the server's `postgres` database. */
async function withMaintenanceClient<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    connectionString: withDatabaseName(databaseUrl, MAINTENANCE_DATABASE),
    connectionTimeoutMillis: 10_000,
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates the database `databaseUrl` names unless it exists, connecting to the server's
 * `postgres` database (the target cannot be connected to before it exists).
 *
 * @returns true when this call created it.
 */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const name = databaseNameOf(databaseUrl);
  return withMaintenanceClient(databaseUrl, async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount !== 0) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
      return true;
    } catch (err) {
      // Another process created it between our check and our CREATE.
      if ((err as { code?: string }).code === DUPLICATE_DATABASE) return false;
      throw err;
    }
  });
}

/**
 * Drops the database `databaseUrl` names if it exists, ending its remaining sessions first
 * (`WITH (FORCE)`, PostgreSQL 13+). Meant for tests' throwaway databases.
 */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = databaseNameOf(databaseUrl);
  if (name === MAINTENANCE_DATABASE) throw new Error('refusing to drop the postgres database');
  await withMaintenanceClient(databaseUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
  });
}
