import type { Client } from 'pg';

/** Counters of one database: transactions, rows by table and operation, calls of its PL/pgSQL functions. */
export type PgCounters = Map<string, number>;

/**
 * Why this exists: a CPU share says how much PostgreSQL worked, not on what.
 * The database's cumulative statistics (pg_stat_database, _user_tables,
 * _user_functions — the last needs `track_functions = pl`) read before and
 * after a load give what each activated run cost it: transactions (each
 * autocommitted statement is one), rows written per table, function calls.
 * Backends publish their counts when idle, up to 10 s later: read after
 * waiting that out.
 */
export async function pgCounters(pg: Client): Promise<PgCounters> {
  const counters: PgCounters = new Map();
  const [db] = (await pg.query(`SELECT xact_commit, xact_rollback, tup_inserted, tup_updated, tup_deleted, tup_fetched FROM pg_stat_database WHERE datname = current_database()`)).rows;
  for (const [key, value] of Object.entries(db ?? {})) counters.set(key, Number(value));
  for (const row of (await pg.query(`SELECT relname, n_tup_ins, n_tup_upd, n_tup_del, seq_scan, idx_scan FROM pg_stat_user_tables`)).rows) {
    for (const column of ['n_tup_ins', 'n_tup_upd', 'n_tup_del', 'seq_scan', 'idx_scan']) counters.set(`${row.relname}.${column.replace(/^n_tup_/, '')}`, Number(row[column] ?? 0));
  }
  for (const row of (await pg.query(`SELECT funcname, calls, self_time FROM pg_stat_user_functions`)).rows) {
    counters.set(`${row.funcname}() calls`, Number(row.calls));
    counters.set(`${row.funcname}() self ms`, Number(row.self_time));
  }
  return counters;
}

/** What changed between two readings, per run, largest first; counters that did not move are left out. */
export function perRun(before: PgCounters, after: PgCounters, runs: number): Array<[string, number]> {
  const deltas: Array<[string, number]> = [];
  for (const [key, value] of after) {
    const delta = value - (before.get(key) ?? 0);
    if (delta > 0 && runs > 0) deltas.push([key, delta / runs]);
  }
  const order = (key: string) => (key.startsWith('xact') || key.startsWith('tup_') ? 0 : key.includes('()') ? 1 : 2);
  return deltas.sort((a, b) => order(a[0]) - order(b[0]) || b[1] - a[1]);
}
