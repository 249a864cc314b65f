import { Client } from 'pg';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

/**
 * The agent registry over real HTTP against the real gateway and event-log
 * processes: the version lifecycle, the `agent.*` facts it emits, every bad
 * input with its status and code leaving no row and no fact, and the lost
 * update that If-Match prevents under concurrency.
 */
describe('agents API', () => {
  let platform: TestPlatform;
  let api: ReturnType<typeof apiClient>;
  let viewer: ReturnType<typeof apiClient>;
  let other: ReturnType<typeof apiClient>;
  let pg: Client;
  let adminUserId: string;
  const base = '/v1/workspaces/acme/agents';
  /** A filter the trigger-filter language refuses: its second condition's regex backtracks catastrophically. */
  const INVALID_FILTER = { all: [{ path: 'payload.failures', op: 'gt', value: 0 }, { path: 'payload.branch', op: 'matches', value: '(a+)+$' }] };

  beforeAll(async () => {
    platform = await startTestPlatform();
    api = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    const viewerToken = await api('POST', '/v1/workspaces/acme/tokens', { name: 'dash', role: 'viewer' });
    viewer = apiClient(platform.gatewayUrl, viewerToken.body.token);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    const admin = await pg.query(`SELECT t.user_id FROM api_tokens t JOIN workspaces w ON w.id = t.workspace_id WHERE w.slug = 'acme' AND t.role = 'admin'`);
    adminUserId = admin.rows[0].user_id;
  });
  afterAll(async () => {
    await pg.end();
    await platform.stop();
  });

  const spec = (extra: Record<string, unknown> = {}) => ({
    name: 'triage',
    instructions: 'You triage failed scorecards.',
    model: { provider: 'scripted', name: 'demo' },
    script: [{ say: 'looked at it' }],
    triggers: [{ kind: 'scorecard.*' }],
    ...extra,
  });
  const ingestAdded = () => platform.factsRecorded();
  /** Everything a registry write could change: rows, heads and facts accepted. */
  const snapshot = async () => {
    const { rows } = await pg.query(
      `SELECT (SELECT count(*) FROM agents)::int AS agents, (SELECT count(*) FROM agent_versions)::int AS versions,
              (SELECT coalesce(max(updated_at), 'epoch')::text FROM agents) AS updated`,
    );
    return { ...rows[0], facts: await ingestAdded() };
  };
  const agentFacts = async (agentId: string) => {
    const page = await api('GET', '/v1/workspaces/acme/events?kind=agent.*&limit=1000');
    return page.body.events.filter((e: { subject: { id: string } }) => e.subject.id === agentId);
  };

  it('creates, reads, lists, versions, enables, disables and deletes an agent, emitting its facts', async () => {
    const created = await api('POST', base, spec());
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"1"');
    const id = created.body.id;
    expect(created.body).toMatchObject({ workspace: 'acme', version: 1, enabled: true });
    // Defaults are filled in and stored, so the version is complete on its own.
    expect(created.body.spec).toMatchObject({ description: '', task: '', permissionMode: 'default', allowSelfCause: false });
    expect(created.body.spec.flow).toEqual({ concurrency: 1, cooldownMs: 0, queueCap: 100, debounceMs: 0, priority: 0 });
    expect(created.body.spec.enabled).toBeUndefined();

    // Reads also tell how close the agent is to its limits (nothing spent, nothing queued yet).
    expect((await api('GET', `${base}/${id}`)).body).toEqual({ ...created.body, usage: { spentTodayUsd: 0, queuedRuns: 0 } });
    expect((await viewer('GET', base)).body.agents.map((a: { id: string }) => a.id)).toContain(id);

    const updated = await api('PUT', `${base}/${id}`, spec({ instructions: 'Be brief.' }), { 'if-match': '"1"' });
    expect(updated.status).toBe(200);
    expect(updated.headers.get('etag')).toBe('"2"');
    expect(updated.body).toMatchObject({ version: 2, enabled: true, spec: { instructions: 'Be brief.' } });
    // Without If-Match the PUT applies to whatever is latest.
    const renamed = await api('PUT', `${base}/${id}`, spec({ name: 'triage-2' }));
    expect(renamed.body).toMatchObject({ version: 3, spec: { name: 'triage-2', instructions: 'You triage failed scorecards.' } });

    const versions = await viewer('GET', `${base}/${id}/versions`);
    expect(versions.body.versions.map((v: { version: number; name: string }) => [v.version, v.name])).toEqual([[1, 'triage'], [2, 'triage'], [3, 'triage-2']]);
    expect(versions.body.versions[0]).toMatchObject({ agentId: id, createdBy: adminUserId });
    expect(versions.body.nextCursor).toBeNull();
    const paged = await viewer('GET', `${base}/${id}/versions?after=1&limit=1`);
    expect(paged.body).toMatchObject({ versions: [{ version: 2 }], nextCursor: 2 });
    const v2 = await viewer('GET', `${base}/${id}/versions/2`);
    expect(v2.body).toMatchObject({ agentId: id, version: 2, spec: { instructions: 'Be brief.' } });

    expect((await api('POST', `${base}/${id}/disable`)).body).toMatchObject({ enabled: false, version: 3 });
    expect((await api('POST', `${base}/${id}/disable`)).status).toBe(200);
    expect((await api('POST', `${base}/${id}/enable`)).body).toMatchObject({ enabled: true, version: 3 });
    // A changed spec that also flips the flag: a version, then the flip (an identical spec would make no version: issue-13 tests).
    const disabledByPut = await api('PUT', `${base}/${id}`, spec({ name: 'triage-2', task: 'Triage the flaky ones first.', enabled: false }), { 'if-match': '3' });
    expect(disabledByPut.body).toMatchObject({ version: 4, enabled: false });

    expect((await api('DELETE', `${base}/${id}`)).status).toBe(204);
    expect((await api('GET', `${base}/${id}`)).body.error.code).toBe('AGENT_NOT_FOUND');
    // Its history stays readable (issue 13).
    expect((await api('GET', `${base}/${id}/versions`)).body.versions).toHaveLength(4);
    expect((await api('DELETE', `${base}/${id}`)).status).toBe(404);
    expect((await api('GET', base)).body.agents.map((a: { id: string }) => a.id)).not.toContain(id);
    // The rows stay for the runs' history; the name is free again.
    expect((await pg.query('SELECT count(*)::int AS n FROM agent_versions WHERE agent_id = $1', [id])).rows[0].n).toBe(4);
    const again = await api('POST', base, spec({ name: 'triage-2' }));
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(id);

    // One fact per change, in order, after each commit; the repeated disable emitted none.
    const facts = await waitFor(async () => {
      const found = await agentFacts(id);
      return found.length >= 8 ? found : undefined;
    }, { what: 'eight agent.* facts' });
    expect(facts.map((f: { kind: string; payload: unknown }) => [f.kind, f.payload])).toEqual([
      ['agent.created', { version: 1, name: 'triage', enabled: true, pinnedVersion: null }],
      ['agent.updated', { version: 2, name: 'triage', enabled: true, pinnedVersion: null }],
      ['agent.updated', { version: 3, name: 'triage-2', enabled: true, pinnedVersion: null }],
      ['agent.disabled', { version: 3, name: 'triage-2', enabled: false, pinnedVersion: null }],
      ['agent.enabled', { version: 3, name: 'triage-2', enabled: true, pinnedVersion: null }],
      ['agent.updated', { version: 4, name: 'triage-2', enabled: false, pinnedVersion: null }],
      ['agent.disabled', { version: 4, name: 'triage-2', enabled: false, pinnedVersion: null }],
      ['agent.deleted', { version: 4, name: 'triage-2', enabled: false }],
    ]);
    expect(facts[0]).toMatchObject({ subject: { type: 'agent', id }, actor: { type: 'member', id: adminUserId } });
  });
  describe('bad input leaves no row, no version and no fact', () => {
    let mine: string;
    let theirs: string;
    const unknownId = '0190f0f0-0000-7000-8000-000000000001';

    beforeAll(async () => {
      mine = (await api('POST', base, spec({ name: 'mine' }))).body.id;
      await api('POST', base, spec({ name: 'taken' }));
      theirs = (await other('POST', '/v1/workspaces/other/agents', spec({ name: 'theirs' }))).body.id;
      expect([mine, theirs]).toEqual([expect.any(String), expect.any(String)]);
    });

    type Case = [string, () => Promise<{ status: number; body: any }>, number, string];
    const cases: Case[] = [
      ['wrong types', () => api('POST', base, spec({ name: 5, triggers: 'scorecard.*' })), 400, 'VALIDATION_FAILED'],
      ['unknown field', () => api('POST', base, spec({ name: 'x', color: 'red' })), 400, 'VALIDATION_FAILED'],
      ['no trigger', () => api('POST', base, spec({ name: 'x', triggers: [] })), 400, 'VALIDATION_FAILED'],
      ['bad kind glob', () => api('POST', base, spec({ name: 'x', triggers: [{ kind: 'Score card' }] })), 400, 'VALIDATION_FAILED'],
      ['scripted without script', () => api('POST', base, spec({ name: 'x', script: undefined })), 400, 'VALIDATION_FAILED'],
      ['concurrency over 1,000', () => api('POST', base, spec({ name: 'x', flow: { concurrency: 1001 } })), 400, 'VALIDATION_FAILED'],
      ['malformed JSON', () => api('POST', base, '{"name": '), 400, 'MALFORMED_JSON'],
      ['duplicate name', () => api('POST', base, spec({ name: 'taken' })), 409, 'AGENT_NAME_TAKEN'],
      ['rename to a taken name', () => api('PUT', `${base}/${mine}`, spec({ name: 'taken' })), 409, 'AGENT_NAME_TAKEN'],
      ['invalid spec on PUT', () => api('PUT', `${base}/${mine}`, spec({ name: 'mine', budget: { maxTurns: 0 } })), 400, 'VALIDATION_FAILED'],
      ['unknown agent', () => api('PUT', `${base}/${unknownId}`, spec({ name: 'mine' })), 404, 'AGENT_NOT_FOUND'],
      ['malformed agent id', () => api('PUT', `${base}/not-a-uuid`, spec({ name: 'mine' })), 400, 'VALIDATION_FAILED'],
      ["another workspace's agent through my path (PUT)", () => api('PUT', `${base}/${theirs}`, spec({ name: 'mine' })), 404, 'AGENT_NOT_FOUND'],
      ["another workspace's agent through my path (disable)", () => api('POST', `${base}/${theirs}/disable`), 404, 'AGENT_NOT_FOUND'],
      ["another workspace's agent through my path (DELETE)", () => api('DELETE', `${base}/${theirs}`), 404, 'AGENT_NOT_FOUND'],
      ["another workspace's agent through their path", () => api('PUT', `/v1/workspaces/other/agents/${theirs}`, spec({ name: 'x' })), 403, 'WORKSPACE_FORBIDDEN'],
      ['stale If-Match', () => api('PUT', `${base}/${mine}`, spec({ name: 'mine' }), { 'if-match': '"7"' }), 409, 'AGENT_VERSION_CONFLICT'],
      ['malformed If-Match', () => api('PUT', `${base}/${mine}`, spec({ name: 'mine' }), { 'if-match': 'v1' }), 400, 'VALIDATION_FAILED'],
      ['If-Match list', () => api('PUT', `${base}/${mine}`, spec({ name: 'mine' }), { 'if-match': '"1", "2"' }), 400, 'VALIDATION_FAILED'],
      ['viewer creating', () => viewer('POST', base, spec({ name: 'x' })), 403, 'FORBIDDEN'],
      ['viewer updating', () => viewer('PUT', `${base}/${mine}`, spec({ name: 'mine' })), 403, 'FORBIDDEN'],
      ['viewer disabling', () => viewer('POST', `${base}/${mine}/disable`), 403, 'FORBIDDEN'],
      ['viewer deleting', () => viewer('DELETE', `${base}/${mine}`), 403, 'FORBIDDEN'],
    ];
    it.each(cases)('%s', async (_name, request, status, code) => {
      const before = await snapshot();
      const response = await request();
      expect(response.status).toBe(status);
      expect(response.body.error.code).toBe(code);
      expect(await snapshot()).toEqual(before);
    });

    it('names the bad path of an invalid trigger filter', async () => {
      const before = await snapshot();
      const response = await api('POST', base, spec({ name: 'x', triggers: [{ kind: 'scorecard.*' }, { kind: 'build.*', filter: INVALID_FILTER }] }));
      expect(response.status).toBe(400);
      const paths = response.body.error.details.map((issue: { path: Array<string | number> }) => issue.path.join('.'));
      expect(paths).toContain('triggers.1.filter.all.1.value');
      expect(await snapshot()).toEqual(before);
    });

    it('says which version is current on a stale If-Match', async () => {
      const response = await api('PUT', `${base}/${mine}`, spec({ name: 'mine' }), { 'if-match': '"7"' });
      expect(response.body.error.details).toEqual({ id: mine, expected: 7, current: 1 });
    });

    it('answers unknown, malformed and foreign ids and versions on reads', async () => {
      expect((await viewer('GET', `${base}/${unknownId}`)).body.error.code).toBe('AGENT_NOT_FOUND');
      expect((await viewer('GET', `${base}/${theirs}`)).body.error.code).toBe('AGENT_NOT_FOUND');
      expect((await viewer('GET', `${base}/${theirs}/versions/1`)).body.error.code).toBe('AGENT_NOT_FOUND');
      expect((await viewer('GET', `${base}/${mine}/versions/9`)).body.error.code).toBe('AGENT_VERSION_NOT_FOUND');
      for (const bad of ['0', '-1', '1.5', 'abc', '01', '99999999999']) {
        expect((await viewer('GET', `${base}/${mine}/versions/${bad}`)).status).toBe(400);
      }
      expect((await viewer('GET', `${base}?limit=0`)).status).toBe(400);
      expect((await viewer('GET', `${base}?after=nope`)).status).toBe(400);
      expect((await other('GET', `/v1/workspaces/acme/agents/${mine}`)).status).toBe(403);
    });
  });

  it('lets exactly one of 10 concurrent PUTs with the same If-Match win', async () => {
    const id = (await api('POST', base, spec({ name: 'contended' }))).body.id;
    const before = await snapshot();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => api('PUT', `${base}/${id}`, spec({ name: 'contended', task: `attempt ${i}` }), { 'if-match': '"1"' })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(9).fill(409)]);
    expect(responses.filter((r) => r.status === 409).every((r) => r.body.error.details.current === 2)).toBe(true);
    const after = await snapshot();
    expect(after.versions).toBe(before.versions + 1);
    expect(after.facts).toBe(before.facts + 1);
    expect((await api('GET', `${base}/${id}`)).body.version).toBe(2);
  });

  it('gives concurrent PUTs without If-Match dense, distinct versions', async () => {
    const id = (await api('POST', base, spec({ name: 'busy' }))).body.id;
    // Each a different spec: an identical one makes no version.
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => api('PUT', `${base}/${id}`, spec({ name: 'busy', task: `task ${i}` }))));
    expect(responses.map((r) => r.body.version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('pages the agent list by id and documents the routes in OpenAPI', async () => {
    const all: string[] = [];
    let after = '';
    for (;;) {
      const page = await viewer('GET', `${base}?limit=2${after ? `&after=${after}` : ''}`);
      all.push(...page.body.agents.map((a: { id: string }) => a.id));
      if (!page.body.nextCursor) break;
      after = page.body.nextCursor;
    }
    expect(all).toEqual([...all].sort());
    expect(all.length).toBe((await viewer('GET', `${base}?limit=200`)).body.agents.length);
    const doc = (await apiClient(platform.gatewayUrl)('GET', '/v1/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining([`/v1/workspaces/{ws}/agents`, `/v1/workspaces/{ws}/agents/{id}/versions/{version}`]));
    expect(doc.components.schemas.AgentSpec.additionalProperties).toBe(false);
  });
});
