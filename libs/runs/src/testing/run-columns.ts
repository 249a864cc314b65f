import type { RunStatus } from '@switchyard/contracts';

/** A plain `pg` client or pool: what tests arrange rows with. */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/** The columns a test may set on runs as it arranges them. */
export interface RunColumns {
  status?: RunStatus;
  reason?: string | null;
  started_at?: Date | null;
  ended_at?: Date | null;
  stop_requested?: boolean;
  /** JSON: passed as an object or a JSON string. */
  caused_by?: unknown;
  outcome?: unknown;
  error?: unknown;
}

/** Which runs: by id, every run of an agent, or every run in a status. */
export type RunTarget = string | readonly string[] | { agentId: string } | { status: RunStatus };

/**
 * Why this exists: a test (or a bench) sometimes puts runs in a state the run protocol reaches only
 * through a runner — running, completed, asked to stop — or changes a status to watch the runs
 * triggers answer. Production code changes runs through libs/runs only (decision 0044); this is
 * the one place a test writes them by hand, in one UPDATE, as the triggers would see any writer.
 */
export async function setRunColumns(db: Queryable, target: RunTarget, columns: RunColumns): Promise<void> {
  const entries = Object.entries(columns).filter(([, value]) => value !== undefined);
  if (entries.length === 0) throw new Error('setRunColumns: no column to set');
  const set = entries.map(([column], i) => `${column} = $${i + 2}`).join(', ');
  const where =
    typeof target === 'string' || Array.isArray(target)
      ? 'id = ANY($1::uuid[])'
      : 'agentId' in (target as object)
        ? 'agent_id = $1::uuid'
        : 'status = $1::"RunStatus"';
  const key = typeof target === 'string' ? [target] : Array.isArray(target) ? [...target] : 'agentId' in (target as object) ? (target as { agentId: string }).agentId : (target as { status: RunStatus }).status;
  const values = entries.map(([column, value]) => (['caused_by', 'outcome', 'error'].includes(column) && typeof value !== 'string' && value !== null ? JSON.stringify(value) : value));
  await db.query(`UPDATE runs SET ${set} WHERE ${where}`, [key, ...values]);
}
