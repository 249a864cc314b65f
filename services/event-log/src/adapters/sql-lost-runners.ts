import type { LostRun, LostRunner } from '../ops/ops-ports';

/** Most lease-lapse notes read per tick; the rest wait for the next one. */
const MAX_NOTES = 5_000;

/** A lease-lapse note (run_lease_lapses) with its workspace's slug. */
export interface NoteRow {
  id: string;
  run_id: string;
  workspace_id: string;
  slug: string;
  agent_id: string;
  lane: string;
  lease_owner: string;
  lapsed_at: Date;
}

/** The notes of the window ($1), oldest first: what the lane claims found lapsed since the watcher last looked. */
export const NOTES_SQL = `SELECT n.id::text AS id, n.run_id::text AS run_id, n.workspace_id::text AS workspace_id, w.slug,
    n.agent_id::text AS agent_id, n.lane, n.lease_owner, coalesce(n.lease_until, n.noted_at) AS lapsed_at
  FROM run_lease_lapses n JOIN workspaces w ON w.id = n.workspace_id
  WHERE n.noted_at >= $1
  ORDER BY n.id LIMIT ${MAX_NOTES}`;

/** The runs a runner still holds in a workspace: found by the sweep's index on (status, lease_until). */
export const stillHeldSql = `SELECT id::text AS id, agent_id::text AS agent_id, lane FROM runs
  WHERE status = 'running' AND lease_owner = $2 AND workspace_id = $1::uuid ORDER BY id LIMIT 1000`;

/** Reads the runs a runner still holds in a workspace. */
export type StillHeld = (workspaceId: string, runner: string) => Promise<Array<{ id: string; agent_id: string; lane: string }>>;

/**
 * The notes grouped per (workspace, runner), each with the runs that runner
 * still holds there: a dead runner's leases lapse within a renewal period of
 * each other, so the first claims to find some of them lapsed leave others
 * not yet lapsed — listed too, so that one fact names every run it had.
 */
export async function lostRunnersOf(notes: readonly NoteRow[], stillHeld: StillHeld): Promise<LostRunner[]> {
  const groups = new Map<string, NoteRow[]>();
  for (const note of notes) {
    const id = JSON.stringify([note.workspace_id, note.lease_owner]);
    groups.set(id, [...(groups.get(id) ?? []), note]);
  }
  const lost: LostRunner[] = [];
  for (const group of groups.values()) {
    const first = group[0]!;
    const runs = new Map<string, LostRun>();
    for (const note of group) runs.set(note.run_id, { runId: note.run_id, agentId: note.agent_id, lane: note.lane, lapsed: true });
    for (const row of await stillHeld(first.workspace_id, first.lease_owner)) {
      if (!runs.has(row.id)) runs.set(row.id, { runId: row.id, agentId: row.agent_id, lane: row.lane, lapsed: false });
    }
    lost.push({
      workspace: { id: first.workspace_id, slug: first.slug },
      runner: first.lease_owner,
      noteIds: group.map((note) => note.id),
      lapsedAt: new Date(Math.min(...group.map((note) => note.lapsed_at.getTime()))),
      runs: [...runs.values()],
    });
  }
  return lost;
}
