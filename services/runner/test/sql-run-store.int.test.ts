import { Client } from 'pg';
import { newId } from '@switchyard/core';
import { createTestSql, type TestSql } from '@switchyard/testing';
import { SqlRunStore } from '../src/adapters/sql-run-store';

/**
 * The run store's line reads and hand-offs on a real PostgreSQL: the claim's
 * read (queuedCandidates), and the ending that starts the agent's next run in
 * the same statement (finishAndStartNext): it must start the head of the line
 * (past the runs other slots hold and the one another runner is starting),
 * only after an ending that applied and only of the version named, and
 * return the line the claim would read, the ending and the started run left out.
 */
describe('SqlRunStore line reads and hand-offs', () => {
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
         VALUES ($1, $2, $3, 1, 'manual', jsonb_build_object('type', 'manual', 'input', 'go', 'userId', $2::uuid), $4::"RunStatus", $1, CASE WHEN $4 = 'running' THEN now() - make_interval(secs => $5) END)`,
        [id, workspaceId, agentId, statuses[i], startedSecondsAgo],
      );
    }
    return ids;
  };
  const ending = { status: 'completed' as const, reason: null, outcome: { summary: 'ok', turns: 1, toolCalls: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 }, error: null };

  const look = (agentId: string, skip: string[] = [], version = 1) => ({ agentId, limit: 2, lostAfterMs: 60_000, skip, version });
  const statusOf = async (id: string) => (await pg.query(`SELECT status::text AS status FROM runs WHERE id = $1`, [id])).rows[0].status as string;

  it('finishAndStartNext ends the run, starts the head of the line past the held runs, and returns the line without both', async () => {
    const [ending1, lost] = await insertRuns(['running', 'running'], 120);
    const queued = await insertRuns(['queued', 'queued', 'queued', 'queued']);
    const before = await store.queuedCandidates(agentId, 2, 60_000);
    expect(before.candidates.map((r) => r.id)).toEqual(queued.slice(0, 2));
    expect(before.running.sort()).toEqual([ending1, lost].sort());

    // queued[0] is held by another lane's slot: it is passed over.
    const { ended, started, line } = await store.finishAndStartNext(ending1!, ['running'], ending, look(agentId, [queued[0]!]));
    expect(ended).toMatchObject({ id: ending1, status: 'completed', workspaceSlug: 'runs', agentId });
    expect(started).toMatchObject({ id: queued[1], status: 'running', workspaceSlug: 'runs', agentId, agentVersion: 1, stop: null });
    expect(started!.context).toMatchObject({ sessionId: queued[1], fact: null, transcriptSeq: 0 });
    // The line as a claim would read it: the started run left out, still `limit` long.
    expect(line.candidates.map((r) => r.id)).toEqual([queued[0], queued[2]]);
    expect(line.candidates[0]).toMatchObject({ workspaceId, workspaceSlug: 'runs', agentId, agentVersion: 1, status: 'queued' });
    // The ending run is not among the running ones; the other (running for two minutes) may be lost.
    expect(line.running).toEqual([lost]);
    expect(line.active).toEqual([lost]);
    const rows = (await pg.query(`SELECT id::text, status::text AS status, started_at, ended_at FROM runs WHERE id = ANY($1::uuid[])`, [[ending1, queued[1]]])).rows;
    expect(rows.find((r) => r.id === ending1)).toMatchObject({ status: 'completed', ended_at: expect.any(Date) });
    expect(rows.find((r) => r.id === queued[1])).toMatchObject({ status: 'running', started_at: expect.any(Date) });
    await pg.query(`UPDATE runs SET status = 'cancelled' WHERE agent_id = $1 AND status IN ('queued', 'running')`, [agentId]);
  });

  it('finishAndStartNext of a run someone else ended starts nothing and changes nothing', async () => {
    const [done, next] = await insertRuns(['cancelled', 'queued']);
    const { ended, started, line } = await store.finishAndStartNext(done!, ['running'], ending, look(agentId));
    expect(ended).toBeNull();
    expect(started).toBeNull();
    expect(line.candidates.map((r) => r.id)).toEqual([next]);
    expect(await statusOf(done!)).toBe('cancelled');
    expect(await statusOf(next!)).toBe('queued');
    await pg.query(`UPDATE runs SET status = 'cancelled' WHERE id = $1`, [next]);
  });

  it('finishAndStartNext starts nothing when the head of the line is of another version', async () => {
    const [running, next] = await insertRuns(['running', 'queued']);
    const { ended, started } = await store.finishAndStartNext(running!, ['running'], ending, look(agentId, [], 2));
    expect(ended).toMatchObject({ id: running, status: 'completed' });
    expect(started).toBeNull();
    expect(await statusOf(next!)).toBe('queued');
    await pg.query(`UPDATE runs SET status = 'cancelled' WHERE id = $1`, [next]);
  });

  it('finishAndStartNext passes over the run another runner is starting (locked) without waiting for it', async () => {
    const [running, first, second] = await insertRuns(['running', 'queued', 'queued']);
    const other = new Client({ connectionString: t.db.url });
    await other.connect();
    try {
      // Another runner's `queued → running` of the head of the line, not committed yet.
      await other.query('BEGIN');
      await other.query(`UPDATE runs SET status = 'running', started_at = now() WHERE id = $1 AND status = 'queued'`, [first]);
      const { started } = await store.finishAndStartNext(running!, ['running'], ending, look(agentId));
      expect(started?.id).toBe(second);
      await other.query('COMMIT');
    } finally {
      await other.end();
    }
    expect(await statusOf(first!)).toBe('running');
    await pg.query(`UPDATE runs SET status = 'cancelled' WHERE id = ANY($1::uuid[])`, [[first, second]]);
  });

  it('a run started by a hand-off continues its session after the transcript entries written before the ending', async () => {
    const [running, next] = await insertRuns(['running', 'queued']);
    const session = newId();
    await pg.query(`UPDATE runs SET session_id = $1 WHERE id = ANY($2::uuid[])`, [session, [running, next]]);
    for (const seq of [1, 2, 3]) {
      await pg.query(`INSERT INTO transcript_entries (session_id, seq, workspace_id, run_id, type, content) VALUES ($1, $2, $3, $4, 'notice', '{}')`, [session, seq, workspaceId, running]);
    }
    const { started } = await store.finishAndStartNext(running!, ['running'], ending, look(agentId));
    expect(started).toMatchObject({ id: next, context: { sessionId: session, transcriptSeq: 3 } });
    expect(Number((await pg.query(`SELECT max(seq) AS seq FROM transcript_entries WHERE session_id = $1`, [session])).rows[0].seq)).toBe(3);
    await pg.query(`UPDATE runs SET status = 'cancelled' WHERE id = $1`, [next]);
  });

  const instead = (skip: string[] = [], version = 1) => ({ agentId, skip, version });

  it('markRunning starts the claimed run while it is queued', async () => {
    const [claimed, other] = await insertRuns(['queued', 'queued']);
    expect(await store.markRunning(claimed!, instead())).toMatchObject({ id: claimed, status: 'running', stop: null });
    expect(await statusOf(other!)).toBe('queued');
    await pg.query(`UPDATE runs SET status = 'cancelled' WHERE id = ANY($1::uuid[])`, [[claimed, other]]);
  });

  it('markRunning of a claimed run that was started meanwhile starts the head of the line past the held runs in its place', async () => {
    const [claimed, held, head, later] = await insertRuns(['running', 'queued', 'queued', 'queued']);
    // Without `instead`, as before: nothing.
    expect(await store.markRunning(claimed!)).toBeNull();
    const started = await store.markRunning(claimed!, instead([held!]));
    expect(started).toMatchObject({ id: head, status: 'running', agentVersion: 1, context: { sessionId: head } });
    expect([await statusOf(held!), await statusOf(later!)]).toEqual(['queued', 'queued']);
    await pg.query(`UPDATE runs SET status = 'cancelled' WHERE id = ANY($1::uuid[])`, [[claimed, held, head, later]]);
  });

  it('markRunning passes over a claimed run being started by someone else (locked) without waiting, and starts nothing of another version', async () => {
    const [claimed, next] = await insertRuns(['queued', 'queued']);
    const other = new Client({ connectionString: t.db.url });
    await other.connect();
    try {
      // A hand-off's `queued → running` of the claimed run, not committed yet.
      await other.query('BEGIN');
      await other.query(`UPDATE runs SET status = 'running', started_at = now() WHERE id = $1 AND status = 'queued'`, [claimed]);
      expect(await store.markRunning(claimed!, instead([], 2))).toBeNull();
      expect((await store.markRunning(claimed!, instead()))?.id).toBe(next);
      await other.query('COMMIT');
    } finally {
      await other.end();
    }
    expect(await statusOf(claimed!)).toBe('running');
    await pg.query(`UPDATE runs SET status = 'cancelled' WHERE id = ANY($1::uuid[])`, [[claimed, next]]);
  });

  it('an agent with nothing queued or running has an empty line', async () => {
    const line = await store.queuedCandidates(newId(), 11, 60_000);
    expect(line).toEqual({ candidates: [], running: [], active: [] });
  });
});
