import { Client } from 'pg';
import { newId } from '@switchyard/core';
import { createTestSql, type TestSql } from '@switchyard/testing';
import { SqlRetentionStore } from '../src/adapters/sql-retention-store';
import type { RetentionBounds } from '../src/retention/retention-job';
import { DAY_MS, daysAgo, makePastPartitions, markOf, partitionName, retentionJob, seedWorkspace, seqsOf, setRetention, storeFacts, tableExists, WIDE } from './retention-fixtures';

/*
 * Issue 36 §4 (decision 0041), the retention job on PostgreSQL with the test's clock:
 * transcripts, activation skips and tries go by their horizons (a live session's stay); a tick
 * does at most what its bounds allow and a job that stops between ticks (or two at once) leaves
 * nothing half done; a fact that arrived late with an old `ts` waits for the facts numbered
 * before it, so the seqs that remain stay dense; (week) partitions are made ahead.
 */
describe('retention job (PostgreSQL)', () => {
  let t: TestSql;
  const now = new Date();
  beforeEach(async () => {
    t = await createTestSql();
  });
  afterEach(async () => t?.close());

  /** A run of a session, ended `endedDaysAgo` days ago (null: still running). */
  const insertRun = async (workspaceId: string, sessionId: string, endedDaysAgo: number | null): Promise<string> => {
    const id = newId();
    const ended = endedDaysAgo === null ? null : new Date(now.getTime() - endedDaysAgo * DAY_MS);
    await t.pg.query(
      `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id, lane, queued_at, ended_at)
       VALUES ($1, $2, $3, 1, 'manual', '{}', $4::"RunStatus", $5, 'agent:x', $6, $7)`,
      [id, workspaceId, newId(), ended ? 'completed' : 'running', sessionId, new Date(now.getTime() - 45 * DAY_MS), ended],
    );
    return id;
  };
  const insertEntries = async (workspaceId: string, sessionId: string, runId: string, atDaysAgo: number, count: number, firstSeq = 1) => {
    for (let i = 0; i < count; i++) {
      await t.pg.query(`INSERT INTO transcript_entries (session_id, seq, workspace_id, run_id, type, content, at) VALUES ($1, $2, $3, $4, 'message', '{}', $5)`, [
        sessionId, firstSeq + i, workspaceId, runId, new Date(now.getTime() - atDaysAgo * DAY_MS),
      ]);
    }
  };
  const count = async (sql: string, params: unknown[]) => Number((await t.pg.query(sql, params)).rows[0].n);

  it('purges transcripts of sessions idle past the horizon, activation skips past the facts horizon and tries past the transcripts horizon; keeps the rest', async () => {
    const ws = await seedWorkspace(t.pg, 'acme');
    // Default horizons: transcripts 30 days, facts 90 days.
    const [idle, busy, running, teammate] = [newId(), newId(), newId(), newId()];
    const idleRun = await insertRun(ws.id, idle, 40);
    await insertEntries(ws.id, idle, idleRun, 40, 3);
    const busyOld = await insertRun(ws.id, busy, 40);
    await insertEntries(ws.id, busy, busyOld, 40, 2);
    await insertEntries(ws.id, busy, await insertRun(ws.id, busy, 1), 1, 1, 3);
    const runningRun = await insertRun(ws.id, running, null);
    await insertEntries(ws.id, running, runningRun, 40, 2);
    const teammateRun = await insertRun(ws.id, teammate, 40);
    await insertEntries(ws.id, teammate, teammateRun, 40, 2);
    await t.pg.query(`INSERT INTO teammates (id, workspace_id, name, agent_id, session_id) VALUES ($1, $2, 'scout', $3, $4)`, [newId(), ws.id, newId(), teammate]);
    const skip = (daysOld: number) =>
      t.pg.query(`INSERT INTO activation_skips (event_id, agent_id, workspace_id, agent_version, reason, decided_at) VALUES ($1, $2, $3, 1, 'paused', $4)`, [
        newId(), newId(), ws.id, new Date(now.getTime() - daysOld * DAY_MS),
      ]);
    await skip(100);
    await skip(10);
    const tryOf = (runId: string, daysOld: number) =>
      t.pg.query(`INSERT INTO agent_tries (run_id, workspace_id, agent_id, spec, created_by, created_at) VALUES ($1, $2, $3, '{}', $4, $5)`, [
        runId, ws.id, newId(), newId(), new Date(now.getTime() - daysOld * DAY_MS),
      ]);
    await tryOf(idleRun, 40);
    await tryOf(runningRun, 40);
    await tryOf(newId(), 1);

    const tally = await retentionJob(t.sql, () => now).tick();

    expect(tally).toMatchObject({ transcriptEntries: 3, activationSkips: 1, tries: 1 });
    const entries = async (session: string) => count('SELECT count(*) AS n FROM transcript_entries WHERE session_id = $1', [session]);
    expect([await entries(idle), await entries(busy), await entries(running), await entries(teammate)]).toEqual([0, 3, 2, 2]);
    expect(await count('SELECT count(*) AS n FROM activation_skips WHERE workspace_id = $1', [ws.id])).toBe(1);
    expect(await count('SELECT count(*) AS n FROM agent_tries WHERE workspace_id = $1', [ws.id])).toBe(2);
    expect(await count('SELECT count(*) AS n FROM agent_tries WHERE run_id = $1', [idleRun])).toBe(0);

    // A shorter horizon of the workspace's own: the busy session's older run is still part of a live session (its last run ended 1 day ago).
    await setRetention(t.pg, ws.id, { transcriptsDays: 1, factsDays: 5 });
    expect(await retentionJob(t.sql, () => now).tick()).toMatchObject({ activationSkips: 1 });
    expect(await entries(busy)).toBe(3);
  });

  it('is bounded per tick, and a job restarted between ticks (or two at once) finishes the purge with what remains dense', async () => {
    const short = await seedWorkspace(t.pg, 'short');
    const long = await seedWorkspace(t.pg, 'long');
    await setRetention(t.pg, short.id, { factsDays: 7 });
    await makePastPartitions(t.pg, now, 28);
    await storeFacts(t.sql, short, daysAgo(now, 28), 7, true);
    await storeFacts(t.sql, long, daysAgo(now, 28), 1);
    await storeFacts(t.sql, short, daysAgo(now, 14), 3);
    await storeFacts(t.sql, short, now, 2);
    const bounds: RetentionBounds = { batch: 2, maxBatches: 1, partitionsAhead: 1, lockTimeoutMs: 2000 };

    // Each tick is a new job, as after a restart; every kind of row moves by at most one batch of 2.
    const tallies = [];
    for (let i = 0; i < 20 && (await seqsOf(t.pg, short.id)).length > 2; i++) {
      const tally = await retentionJob(t.sql, () => now, bounds).tick();
      tallies.push(tally);
      expect(tally.keys).toBeLessThanOrEqual(2);
      expect(tally.factRows).toBeLessThanOrEqual(2);
      expect(tally.partitionsDropped).toBeLessThanOrEqual(1);
      // The mark is set at the first tick, before anything is deleted.
      expect(await markOf(t.pg, short.id)).toBe(10);
    }
    expect(tallies.length).toBeGreaterThan(2);
    expect(await seqsOf(t.pg, short.id)).toEqual([11, 12]);
    expect(await seqsOf(t.pg, long.id)).toEqual([1]);
    // Two weeks ago held only short's facts: dropped. Four weeks ago holds long's: kept, short's rows deleted.
    expect(await tableExists(t.pg, partitionName(now, 14))).toBe(false);
    expect(await tableExists(t.pg, partitionName(now, 28))).toBe(true);
    expect(await count('SELECT count(*) AS n FROM platform_event_keys WHERE workspace_id = $1', [short.id])).toBe(0);

    // Two jobs at once (a lost lead) fail nothing and change nothing more.
    await Promise.all([retentionJob(t.sql, () => now).tick(), retentionJob(t.sql, () => now).tick()]);
    expect(await seqsOf(t.pg, short.id)).toEqual([11, 12]);
  });

  it('a drop that cannot have platform_events in time is tried again at the next tick, and holds the row deletes back meanwhile', async () => {
    const ws = await seedWorkspace(t.pg, 'busy');
    await setRetention(t.pg, ws.id, { factsDays: 7 });
    await makePastPartitions(t.pg, now, 14);
    await storeFacts(t.sql, ws, daysAgo(now, 14), 2);
    await storeFacts(t.sql, ws, now, 1);
    // A long reader holds platform_events (a report, a slow page): the drop's lock waits 100 ms, then gives up.
    const reader = new Client({ connectionString: t.db.url });
    await reader.connect();
    try {
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM platform_events');
      const held = await retentionJob(t.sql, () => now, { ...WIDE, lockTimeoutMs: 100 }).tick();
      expect(held).toMatchObject({ partitionsDropped: 0, factRows: 0 });
      expect(held.partitionsDeferred).toBeGreaterThan(0);
      expect(await seqsOf(t.pg, ws.id)).toEqual([1, 2, 3]);
    } finally {
      await reader.query('COMMIT');
      await reader.end();
    }
    const next = await retentionJob(t.sql, () => now).tick();
    expect(next.partitionsDropped).toBeGreaterThan(0);
    expect(next.factRows).toBe(0);
    expect(await seqsOf(t.pg, ws.id)).toEqual([3]);
    expect(await tableExists(t.pg, partitionName(now, 14))).toBe(false);
  });

  it('keeps a late fact with an old ts until the facts numbered before it expire: the seqs that remain stay dense', async () => {
    const ws = await seedWorkspace(t.pg, 'late');
    await setRetention(t.pg, ws.id, { factsDays: 7 });
    await makePastPartitions(t.pg, now, 21);
    await storeFacts(t.sql, ws, daysAgo(now, 21), 2); // seqs 1, 2
    await storeFacts(t.sql, ws, now, 2); // seqs 3, 4
    await storeFacts(t.sql, ws, daysAgo(now, 21), 1); // seq 5: a replayed letter, accepted three weeks ago

    await retentionJob(t.sql, () => now).tick();

    // 1 and 2 go; 5 is as old but numbered after facts that are kept: it stays, and so does its partition.
    expect(await markOf(t.pg, ws.id)).toBe(2);
    expect(await seqsOf(t.pg, ws.id)).toEqual([3, 4, 5]);
    expect(await tableExists(t.pg, partitionName(now, 21))).toBe(true);

    // Once the facts before it expire, it goes too, and its partition with it.
    const later = new Date(now.getTime() + 28 * DAY_MS);
    await retentionJob(t.sql, () => later).tick();
    expect(await markOf(t.pg, ws.id)).toBe(5);
    expect(await seqsOf(t.pg, ws.id)).toEqual([]);
    expect(await tableExists(t.pg, partitionName(now, 21))).toBe(false);
  });

  it('makes the partitions of the weeks ahead, and moves a week\'s facts out of the default partition when it makes that week', async () => {
    const ws = await seedWorkspace(t.pg, 'ahead');
    const farDay = new Date(now.getTime() + 20 * DAY_MS);
    // No partition 20 days ahead yet: the fact lands in the default partition rather than fail.
    await storeFacts(t.sql, ws, farDay, 1, true);
    expect((await t.pg.query(`SELECT tableoid::regclass::text AS part FROM platform_events WHERE workspace_id = $1`, [ws.id])).rows).toEqual([{ part: 'platform_events_default' }]);

    const made = await new SqlRetentionStore(t.sql).ensurePartitions([farDay.toISOString().slice(0, 10)], 2000);
    expect(made).toBe(1);
    const name = partitionName(now, -20);
    expect((await t.pg.query(`SELECT tableoid::regclass::text AS part FROM platform_events WHERE workspace_id = $1`, [ws.id])).rows).toEqual([{ part: name }]);

    const tally = await retentionJob(t.sql, () => now, { batch: 10, maxBatches: 1, partitionsAhead: 3, lockTimeoutMs: 2000 }).tick();
    expect(tally.partitionsMade).toBe(0); // the migration made the weeks up to a week ahead
    for (let days = 0; days <= 3; days++) expect(await tableExists(t.pg, partitionName(now, -days))).toBe(true);
  });
});
