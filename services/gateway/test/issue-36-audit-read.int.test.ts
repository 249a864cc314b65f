import { Client } from 'pg';
import { AUDIT_FACT_KINDS, AuditActorsResponseSchema, AuditPageSchema, type Fact } from '@switchyard/contracts';
import { newSecretsKey } from '@switchyard/core';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';
import { addPerson } from './audit-helpers';
import { scriptedAgent } from './run-rows';

type Api = ReturnType<typeof apiClient>;

const ws = '/v1/workspaces/acme';

/**
 * Issue 36 (audit trail), the read: `GET /audit` answers the audit facts
 * newest first — never other kinds — filtered by person and by kind glob,
 * paged by `before` without a gap or a repeat, with every actor named;
 * admins only, in their own workspace only; bad input is a 400. Real gateway
 * and event-log processes on PostgreSQL and Redis.
 */
describe('issue 36: reading the audit trail', () => {
  let platform: TestPlatform;
  let pg: Client;
  let ada: Api;
  let bea: Api;
  let viewer: Api;
  let otherAdmin: Api;
  let acmeId: string;
  let adaId: string;
  let beaId: string;
  /** The ids of acme's audit facts, newest first, as stored. */
  let trail: string[];

  const audit = async (query = '', api: Api = ada) => {
    const answer = await api('GET', `${ws}/audit${query ? `?${query}` : ''}`);
    expect(answer.status).toBe(200);
    return AuditPageSchema.parse(answer.body);
  };
  /** Every entry a filter selects, page after page of `limit`. */
  const allPages = async (filter: string, limit: number) => {
    const entries: Fact[] = [];
    let before: number | null = null;
    for (let pages = 0; pages < 50; pages++) {
      const page = await audit([filter, `limit=${limit}`, before ? `before=${before}` : ''].filter(Boolean).join('&'));
      expect(page.entries.length).toBeLessThanOrEqual(limit);
      entries.push(...page.entries);
      if (page.nextBefore === null) return entries;
      expect(page.nextBefore).toBe(page.entries.at(-1)!.seq);
      before = page.nextBefore;
    }
    throw new Error('paging did not end');
  };

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { SECRETS_KEY: newSecretsKey() } });
    ada = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    otherAdmin = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    acmeId = (await pg.query("SELECT id FROM workspaces WHERE slug = 'acme'")).rows[0].id;
    adaId = (await ada('GET', '/v1/whoami')).body.userId;
    const added = await addPerson(pg, acmeId, 'Bea', 'admin');
    beaId = added.userId;
    bea = apiClient(platform.gatewayUrl, added.token);
    viewer = apiClient(platform.gatewayUrl, (await ada('POST', `${ws}/tokens`, { name: 'dash', role: 'viewer' })).body.token);
    // Governance by both people, among facts that are not governance.
    const ci = (await ada('POST', `${ws}/tokens`, { name: 'ci', role: 'member' })).body.id;
    await bea('PUT', `${ws}/secrets/A`, { value: 'value-a' });
    await ada('POST', `${ws}/events`, { kind: 'build.failed', subject: { type: 'build', id: '1' } });
    await ada('PUT', `${ws}/settings`, { agentsPaused: true });
    await bea('DELETE', `${ws}/tokens/${ci}`);
    await bea('PUT', `${ws}/secrets/B`, { value: 'value-b' });
    await ada('POST', `${ws}/agents`, scriptedAgent('alpha'));
    await otherAdmin('PUT', '/v1/workspaces/other/secrets/THEIRS', { value: 'value-c' });
    await platform.factsRecorded();
    const stored = await pg.query('SELECT id::text AS id FROM platform_events WHERE workspace_id = $1 AND kind = ANY($2::text[]) ORDER BY seq DESC', [acmeId, [...AUDIT_FACT_KINDS]]);
    trail = stored.rows.map((row) => row.id);
  }, 120_000);
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  it('answers the audit facts newest first, no other kind, every actor named (a name recorded, or the name now)', async () => {
    expect(trail).toHaveLength(7);
    const { entries, nextBefore } = await audit();
    expect(entries.map((e) => e.id)).toEqual(trail);
    expect(nextBefore).toBeNull();
    expect(entries.map((e) => e.kind)).toEqual(['agent.created', 'secret.set', 'token.revoked', 'workspace.settings_changed', 'secret.set', 'token.created', 'token.created']);
    expect(entries.map((e) => [e.actor?.id, e.actor?.name])).toEqual([
      [adaId, 'acme admin'],
      [beaId, 'Bea'],
      [beaId, 'Bea'],
      [adaId, 'acme admin'],
      [beaId, 'Bea'],
      [adaId, 'acme admin'],
      [adaId, 'acme admin'],
    ]);
    // Since decision 0042 every credential carries its person's name, so agent.created records it too.
    const stored = (await pg.query('SELECT actor FROM platform_events WHERE id = $1', [entries[0]!.id])).rows[0].actor;
    expect(stored.name).toBe('acme admin');
    // A fact recorded before names were (as older facts are): the read names the person as they are named now.
    await pg.query("UPDATE platform_events SET actor = actor - 'name' WHERE id = $1", [entries[0]!.id]);
    await pg.query("UPDATE users SET name = 'Ada Lovelace' WHERE id = $1", [adaId]);
    expect((await audit()).entries.map((e) => e.actor?.name)[0]).toBe('Ada Lovelace');
    // A name recorded with the change stays the one it had then.
    expect((await audit()).entries.map((e) => e.actor?.name)[3]).toBe('acme admin');
    await pg.query("UPDATE users SET name = 'acme admin' WHERE id = $1", [adaId]);
  });

  it('filters by person and by kind glob, together or apart', async () => {
    expect((await audit(`actor=${beaId}`)).entries.map((e) => e.kind)).toEqual(['secret.set', 'token.revoked', 'secret.set']);
    expect((await audit(`actor=${adaId}`)).entries.every((e) => e.actor?.id === adaId)).toBe(true);
    expect((await audit('kind=secret.*')).entries.map((e) => e.subject.id)).toEqual(['B', 'A']);
    expect((await audit('kind=token.**')).entries.map((e) => e.kind)).toEqual(['token.revoked', 'token.created', 'token.created']);
    expect((await audit(`kind=token.*&actor=${beaId}`)).entries.map((e) => e.kind)).toEqual(['token.revoked']);
    expect((await audit('kind=workspace.settings_changed')).entries).toHaveLength(1);
    // Globs that select no audit kind, and people who did nothing, read nothing.
    for (const query of ['kind=build.*', 'kind=agent.run.*', 'kind=**.failed', 'actor=0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b']) {
      expect(await audit(query)).toEqual({ entries: [], nextBefore: null });
    }
  });

  it('pages by before: every entry once, in order, with and without filters', async () => {
    for (const limit of [1, 3, 7]) expect((await allPages('', limit)).map((e) => e.id)).toEqual(trail);
    expect((await allPages(`actor=${beaId}`, 2)).map((e) => e.kind)).toEqual(['secret.set', 'token.revoked', 'secret.set']);
    const newest = (await audit('limit=1')).entries[0]!;
    expect((await audit(`before=${newest.seq}`)).entries.map((e) => e.id)).toEqual(trail.slice(1));
    expect((await audit('before=1')).entries).toEqual([]);
  });

  it('lists the people who appear in the trail, named', async () => {
    const answer = await ada('GET', `${ws}/audit/actors`);
    expect(answer.status).toBe(200);
    const { actors } = AuditActorsResponseSchema.parse(answer.body);
    expect(actors.sort((a, b) => a.name!.localeCompare(b.name!))).toEqual([
      { type: 'member', id: beaId, name: 'Bea' },
      { type: 'member', id: adaId, name: 'acme admin' },
    ].sort((a, b) => a.name.localeCompare(b.name)));
  });

  it('is for admins of the workspace only: another workspace’s admin sees nothing of it, and their own trail holds none of it', async () => {
    for (const path of [`${ws}/audit`, `${ws}/audit/actors`]) {
      const foreign = await otherAdmin('GET', path);
      expect([foreign.status, foreign.body.error.code]).toEqual([403, 'WORKSPACE_FORBIDDEN']);
      expect(JSON.stringify(foreign.body)).not.toContain(adaId);
      const byViewer = await viewer('GET', path);
      expect([byViewer.status, byViewer.body.error.code]).toEqual([403, 'FORBIDDEN']);
      expect((await apiClient(platform.gatewayUrl)('GET', path)).status).toBe(401);
    }
    const own = await otherAdmin('GET', '/v1/workspaces/other/audit');
    expect(own.body.entries.map((e: Fact) => [e.kind, e.subject.id])).toEqual([['secret.set', 'THEIRS']]);
    expect((await otherAdmin('GET', `/v1/workspaces/other/audit?actor=${adaId}`)).body.entries).toEqual([]);
  });

  it('answers bad input with 400 VALIDATION_FAILED, never a 5xx', async () => {
    const bad = [
      'actor=ada',
      'actor=',
      'kind=Token.*',
      'kind=%00',
      'kind=a..b',
      'before=0',
      'before=-1',
      'before=1.5',
      'before=99999999999999999999',
      'limit=0',
      'limit=201',
      'limit=x',
      'limit=1&limit=2',
      'after=3',
      'actor=%E0%A4%A',
    ];
    for (const query of bad) {
      const answer = await ada('GET', `${ws}/audit?${query}`);
      expect([query, answer.status, answer.body.error?.code]).toEqual([query, 400, 'VALIDATION_FAILED']);
    }
    expect((await ada('GET', `${ws}/audit?kind=secret.*&actor=${beaId}`)).status).toBe(200);
    expect((await ada('POST', `${ws}/audit`, {})).status).toBe(405);
  });
});
