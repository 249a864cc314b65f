import { PrismaPg } from '@prisma/adapter-pg';
import type {
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import pg from 'pg';

/** PostgreSQL's internal one-byte `"char"` type and `text`, by type OID. */
const CHAR_OID = 18;
const TEXT_OID = 25;

type QueryCallback = (err: Error | undefined, res: unknown) => void;

/** Relabels `"char"` result columns as `text` in one result or an array of results. */
function relabelCharColumns(res: unknown): unknown {
  for (const result of Array.isArray(res) ? res : [res]) {
    const fields = (result as { fields?: { dataTypeID: number }[] } | undefined)?.fields ?? [];
    for (const field of fields) {
      if (field.dataTypeID === CHAR_OID) field.dataTypeID = TEXT_OID;
    }
  }
  return res;
}

/**
 * A `pg.Client` whose results report PostgreSQL's `"char"` columns as `text`.
 *
 * The schema engine reads catalog columns such as `pg_class.relkind` and `pg_constraint.contype`
 * when it describes a live database (a diff from the database, introspection), and
 * `@prisma/adapter-pg` 7.10 rejects `"char"` ("Column type 'char' could not be deserialized").
 * Its values arrive as one-character strings already, so only the label needs changing.
 */
class CharAsTextClient extends pg.Client {
  // `pg.Client#query` has many overloads (callback, promise, submittable); relabel in all of them.
  override query(...args: unknown[]): never {
    const query = super.query as unknown as (...a: unknown[]) => unknown;
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      const callback = last as QueryCallback;
      args[args.length - 1] = (err: Error | undefined, res: unknown) =>
        callback(err, res === undefined ? res : relabelCharColumns(res));
      return query.apply(this, args) as never;
    }
    const result = query.apply(this, args);
    if (typeof (result as Promise<unknown> | undefined)?.then === 'function') {
      return (result as Promise<unknown>).then(relabelCharColumns) as never;
    }
    return result as never;
  }
}

/** Options of {@link createMigrationPool}. */
export interface MigrationPoolOptions {
  /** The database to migrate or describe. */
  databaseUrl: string;
  /** Connections the engine may open. @defaultValue 2 */
  poolMax?: number;
  /** How long to wait for a connection before failing, in ms. @defaultValue 10000 */
  connectionTimeoutMillis?: number;
}

/**
 * Creates the `pg.Pool` the schema engine runs on. The caller owns it and must `end()` it:
 * freeing the engine does not dispose the adapter, and an open pool keeps the process alive.
 */
export function createMigrationPool(options: MigrationPoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    Client: CharAsTextClient,
    max: options.poolMax ?? 2,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
    // Migrations are a burst of queries: release idle connections quickly.
    idleTimeoutMillis: 1_000,
  });
  // An idle client erroring (server restart) must not crash the process; queries still fail.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * The driver-adapter factory for the schema engine: `PrismaPg` on `pool`, changed in two ways.
 *
 * - `executeScript` sends the whole migration script in one simple-protocol query on one
 *   connection. `@prisma/adapter-pg` splits scripts on every `;` and runs the pieces one by one
 *   on any pooled connection, which breaks `$$`-quoted function bodies and string literals
 *   holding `;`, and leaves a failed migration half applied. A multi-statement simple query is
 *   one implicit transaction, which is what Prisma's native engine does on PostgreSQL.
 * - `connectToShadowDb` refuses. The adapter's shadow database ignores the database name when
 *   configured by `connectionString` and so would run on the main database; nothing here needs
 *   a shadow database (diffs start from a schema snapshot or the empty schema).
 *
 * Pass the result through `bindMigrationAwareSqlAdapterFactory` before handing it to the engine.
 */
export function createMigrationAdapterFactory(pool: pg.Pool): SqlMigrationAwareDriverAdapterFactory {
  const inner = new PrismaPg(pool);
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    async connect(): Promise<SqlDriverAdapter> {
      const adapter = await inner.connect();
      // Keep every other method bound to the real adapter; replace only executeScript.
      const wrapped = Object.create(adapter) as SqlDriverAdapter;
      wrapped.executeScript = async (script: string): Promise<void> => {
        // No parameters and no statement name: pg uses the simple query protocol, which
        // accepts several statements; errors still go through the adapter's error mapping.
        await adapter.executeRaw({ sql: script, args: [], argTypes: [] });
      };
      return wrapped;
    },
    connectToShadowDb(): Promise<SqlDriverAdapter> {
      return Promise.reject(
        new Error('@switchyard/db: the schema engine asked for a shadow database; none is provided'),
      );
    },
  };
}
