import type { Client } from 'pg';
import { newId } from '@switchyard/core';
import { createTestSql, type TestSql } from '@switchyard/testing';
import { SqlRunStore } from '../src/adapters/sql-run-store';

/**
 * The run store's line reads on a real PostgreSQL: the claim's read
 * (queuedCandidates) and the ending that reads the line for the lane's next
 * claim in the same statement (finishAndLook) must see the same line, the
 * ending run left out.
 */
describe('SqlRunStore line reads', () => {
  let t: TestSql;
  let pg: Client;
  let store: SqlRunStore;
  const workspaceId = newId();
  const agentId = newId();

  beforeAll(async () => {
    t = await createTestSql();
    pg = t.pg;
    await pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, 'runs')`, [workspaceId]);
    store = new SqlRunStore(t.sql);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Inserts runs of the agent in line order (ids are UUIDv7: creation order breaks queued_at ties). */
  const insertRuns = async (statuses: string[], startedSecondsAgo = 0): Promise<string[]> => {
    const ids = statuses.map(() => newId());
    for (const [i, id] of ids.entries()) {
      await pg.query(
        `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id, started_at)
         VALUES ($1, $2, $3, 1, 'manual', '{}', $4::"RunStatus", $1, CASE WHEN $4 = 'running' THEN now() - make_interval(secs => $5) END)`,
        [id, workspaceId, agentId, statuses[i], startedSecondsAgo],
      );
    }
    return ids;
  };
  const ending = { status: 'completed' as const, reason: null, outcome: { summary: 'ok', turns: 1, toolCalls: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 }, error: null };

  it('finishAndLook ends the run and returns the line queuedCandidates reads, without the ending run', async () => {
    const [ending1, lost] = await insertRuns(['running', 'running'], 120);
    const queued = await insertRuns(['queued', 'queued', 'queued']);
    const before = await store.queuedCandidates(agentId, 2, 60_000);
    expect(before.candidates.map((r) => r.id)).toEqual(queued.slice(0, 2));
    expect(before.running.sort()).toEqual([ending1, lost].sort());

    const { ended, line } = await store.finishAndLook(ending1!, ['running'], ending, { agentId, limit: 2, lostAfterMs: 60_000 });
    expect(ended).toMatchObject({ id: ending1, status: 'completed', workspaceSlug: 'runs', agentId });
    expect(line.candidates.map((r) => r.id)).toEqual(queued.slice(0, 2));
    expect(line.candidates[0]).toMatchObject({ workspaceId, workspaceSlug: 'runs', agentId, agentVersion: 1, status: 'queued' });
    // The ending run is not among the running ones; the other (running for two minutes) may be lost.
    expect(line.running).toEqual([lost]);
    expect(line.active).toEqual([lost]);
    const row = (await pg.query(`SELECT status::text AS status, ended_at FROM runs WHERE id = $1`, [ending1])).rows[0];
    expect(row.status).toBe('completed');
    expect(row.ended_at).not.toBeNull();
  });

  it('finishAndLook of a run someone else ended returns no ending, still the line, and changes nothing', async () => {
    const [done] = await insertRuns(['cancelled']);
    const { ended, line } = await store.finishAndLook(done!, ['running'], ending, { agentId, limit: 10, lostAfterMs: 60_000 });
    expect(ended).toBeNull();
    expect(line.candidates.length).toBe(3);
    expect((await pg.query(`SELECT status::text AS status FROM runs WHERE id = $1`, [done])).rows[0].status).toBe('cancelled');
  });

  it('an agent with nothing queued or running has an empty line', async () => {
    const line = await store.queuedCandidates(newId(), 11, 60_000);
    expect(line).toEqual({ candidates: [], running: [], active: [] });
  });
});
