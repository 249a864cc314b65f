import { Client } from 'pg';
import { SqlPool } from '@switchyard/db';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';
import { daysAgo, makePastPartitions, markOf, partitionName, retentionJob, seqsOf, storeFacts, tableExists } from './retention-fixtures';

/*
 * Issue 36 §4, end to end on the real gateway and event-log processes: retention purges a
 * workspace's expired facts by dropping their week's partition (and, where another workspace
 * keeps that week, by rows), touches nothing newer, leaves the seqs that remain dense, and the
 * events listing and the SSE stream answer a cursor behind the horizon `410 CURSOR_EXPIRED`
 * with the oldest kept seq. The job runs in the test's process on the test's clock (the
 * event-log's own is off), so weeks pass without waiting for them.
 */
describe('issue 36: retention of facts', () => {
  let platform: TestPlatform;
  let sql: SqlPool;
  let pg: Client;
  const now = new Date();

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { RETENTION_ENABLED: 'false' } });
    sql = new SqlPool({ databaseUrl: platform.db.url, poolMax: 2 });
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg.end();
    await sql.$disconnect();
    await platform.stop();
  });

  it('drops the week partition of expired facts, deletes by rows what another workspace keeps, touches nothing newer; an old cursor gets 410 with the oldest kept seq', async () => {
    const acmeToken = await platform.createWorkspace('acme');
    await platform.createWorkspace('keeper');
    const { rows: spaces } = await pg.query<{ id: string; slug: string }>(`SELECT id::text, slug FROM workspaces WHERE slug IN ('acme', 'keeper')`);
    const acme = spaces.find((w) => w.slug === 'acme')!;
    const keeper = spaces.find((w) => w.slug === 'keeper')!;
    await makePastPartitions(pg, now, 21);
    // acme: 3 facts (keyed) three weeks ago, 2 two weeks ago, 1 yesterday. keeper (the 90-day default): 2 three weeks ago.
    const threeWeeksAgo = await storeFacts(sql, acme, daysAgo(now, 21), 3, true);
    await storeFacts(sql, acme, daysAgo(now, 14), 2);
    await storeFacts(sql, acme, daysAgo(now, 1), 1);
    const kept = await storeFacts(sql, keeper, daysAgo(now, 21), 2);
    const api = apiClient(platform.gatewayUrl, acmeToken);
    // Through the API, as an admin would: records workspace.settings_changed (seq 7, today).
    const saved = await api('PUT', '/v1/workspaces/acme/settings', { retention: { factsDays: 7 } });
    expect(saved).toMatchObject({ status: 200, body: { retention: { factsDays: 7, transcriptsDays: 30 } } });
    await platform.factsRecorded();
    expect(await seqsOf(pg, acme.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const newer = await pg.query('SELECT * FROM platform_events WHERE workspace_id = $1 AND seq >= 6 ORDER BY seq', [acme.id]);

    const tally = await retentionJob(sql, () => now).tick();

    // Two weeks ago held only acme's expired facts: dropped whole. Three weeks ago holds keeper's: kept, acme's rows deleted.
    expect(await tableExists(pg, partitionName(now, 14))).toBe(false);
    expect(await tableExists(pg, partitionName(now, 21))).toBe(true);
    expect(tally).toMatchObject({ factRows: 3, keys: 3, horizonsMoved: 1 });
    expect(tally.partitionsDropped).toBeGreaterThanOrEqual(1);
    expect(await markOf(pg, acme.id)).toBe(5);
    // What remains is dense and untouched; keeper lost nothing.
    expect(await seqsOf(pg, acme.id)).toEqual([6, 7]);
    expect((await pg.query('SELECT * FROM platform_events WHERE workspace_id = $1 AND seq >= 6 ORDER BY seq', [acme.id])).rows).toEqual(newer.rows);
    expect(await seqsOf(pg, keeper.id)).toEqual(kept.map((fact) => fact.seq));
    expect((await pg.query('SELECT count(*)::int AS n FROM platform_event_keys WHERE event_id = ANY($1::uuid[])', [threeWeeksAgo.map((f) => f.id)])).rows[0].n).toBe(0);

    // The listing: behind the horizon is 410 with the oldest kept seq; at it, or from the start, serves what remains.
    const behind = await api('GET', '/v1/workspaces/acme/events?after=3');
    expect(behind).toMatchObject({ status: 410, body: { error: { code: 'CURSOR_EXPIRED', details: { after: 3, oldestSeq: 6 } } } });
    expect((await api('GET', '/v1/workspaces/acme/events?after=5')).body.events.map((e: { seq: number }) => e.seq)).toEqual([6, 7]);
    expect((await api('GET', '/v1/workspaces/acme/events')).body.events.map((e: { seq: number }) => e.seq)).toEqual([6, 7]);
    // The stream: a resume behind the horizon is refused before it opens.
    const stream = await fetch(`${platform.gatewayUrl}/v1/workspaces/acme/stream`, { headers: { authorization: `Bearer ${acmeToken}`, 'last-event-id': '2' } });
    expect(stream.status).toBe(410);
    expect(await stream.json()).toMatchObject({ error: { code: 'CURSOR_EXPIRED', details: { after: 2, oldestSeq: 6 } } });

    // A second tick finds nothing more to do.
    expect(await retentionJob(sql, () => now).tick()).toMatchObject({ partitionsDropped: 0, factRows: 0, keys: 0, horizonsMoved: 0 });
  });

  it('retention is a workspace setting: admins save it, null puts the default back, each save is audited; bad values are 400 VALIDATION_FAILED', async () => {
    const token = await platform.createWorkspace('settings');
    const api = apiClient(platform.gatewayUrl, token);
    expect((await api('GET', '/v1/workspaces/settings/settings')).body.retention).toEqual({ factsDays: 90, transcriptsDays: 30 });
    expect((await api('PUT', '/v1/workspaces/settings/settings', { retention: { transcriptsDays: 7 } })).body.retention).toEqual({ factsDays: 90, transcriptsDays: 7 });
    expect((await api('PUT', '/v1/workspaces/settings/settings', { retention: { factsDays: 365 } })).body.retention).toEqual({ factsDays: 365, transcriptsDays: 7 });
    expect((await api('PUT', '/v1/workspaces/settings/settings', { retention: { factsDays: null } })).body.retention).toEqual({ factsDays: 90, transcriptsDays: 7 });
    for (const retention of [{ factsDays: 0 }, { factsDays: 3651 }, { transcriptsDays: 1.5 }, { factsDays: '30' }, {}, { facts: 3 }, null, 'forever']) {
      const refused = await api('PUT', '/v1/workspaces/settings/settings', { retention });
      expect({ retention, status: refused.status, code: refused.body.error?.code }).toEqual({ retention, status: 400, code: 'VALIDATION_FAILED' });
    }
    await platform.factsRecorded();
    const audited = await api('GET', '/v1/workspaces/settings/events?kind=workspace.settings_changed');
    expect(audited.body.events.map((e: { payload: { changed: string[]; retention: unknown } }) => [e.payload.changed, e.payload.retention])).toEqual([
      [['retention'], { factsDays: 90, transcriptsDays: 7 }],
      [['retention'], { factsDays: 365, transcriptsDays: 7 }],
      [['retention'], { factsDays: 90, transcriptsDays: 7 }],
    ]);
  });
});
