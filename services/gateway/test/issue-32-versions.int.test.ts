import { Client } from 'pg';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

/**
 * Issue 32 §4 (decision 0046) over real HTTP against the gateway, event-log,
 * matcher and a runner: tags, the pin and its rollback, the diff, and that a
 * run started after a rollback — by a fact, by hand, or as a teammate's turn —
 * runs the pinned version (its spec: the scripted answer says which).
 */
describe('issue 32: agent versions — tags, pin, rollback, diff', () => {
  let platform: TestPlatform;
  let api: ReturnType<typeof apiClient>;
  let viewer: ReturnType<typeof apiClient>;
  let other: ReturnType<typeof apiClient>;
  let pg: Client;
  const ws = '/v1/workspaces/acme';

  beforeAll(async () => {
    platform = await startTestPlatform({ matcher: true, runners: 1 });
    api = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    viewer = apiClient(platform.gatewayUrl, (await api('POST', `${ws}/tokens`, { name: 'dash', role: 'viewer' })).body.token);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  const spec = (answer: string, extra: Record<string, unknown> = {}) => ({
    name: 'deployer',
    instructions: 'You deploy.',
    model: { provider: 'scripted', name: 'demo' },
    script: [{ say: answer }],
    triggers: [{ kind: 'deploy.requested' }],
    ...extra,
  });
  const factsOf = async (agentId: string, kind: string) =>
    (await pg.query(`SELECT payload, actor FROM platform_events WHERE subject_type = 'agent' AND subject_id = $1 AND kind = $2 ORDER BY seq`, [agentId, kind])).rows;
  /** The agent's runs (oldest first) once `count` have ended, with the answer each gave. */
  const endedRuns = (agentId: string, count: number) =>
    waitFor(
      async () => {
        const { rows } = await pg.query(`SELECT id::text, agent_version, status::text, outcome->>'summary' AS summary, origin_type FROM runs WHERE agent_id = $1 ORDER BY queued_at, id`, [agentId]);
        return rows.length >= count && rows.every((row) => ['completed', 'failed'].includes(row.status)) ? rows : null;
      },
      { timeoutMs: 45_000, what: `${count} runs of the agent ended` },
    );
  const deployRequested = () => api('POST', `${ws}/events`, { kind: 'deploy.requested', subject: { type: 'service', id: 'web' } });

  let agentId: string;

  it('pins an older version (a rollback): trigger, manual and teammate runs run it; unpinning returns to the latest', async () => {
    agentId = (await api('POST', `${ws}/agents`, spec('answer from v1'))).body.id;
    await api('PUT', `${ws}/agents/${agentId}`, spec('answer from v2'));
    const v3 = await api('PUT', `${ws}/agents/${agentId}`, spec('answer from v3', { instructions: 'You deploy carefully.' }));
    expect(v3.body).toMatchObject({ version: 3, pinnedVersion: null });

    const pinned = await api('PUT', `${ws}/agents/${agentId}/pin`, { version: 1 });
    expect(pinned.status).toBe(200);
    expect(pinned.body).toMatchObject({ version: 3, pinnedVersion: 1, spec: { instructions: 'You deploy carefully.' } });
    expect(pinned.headers.get('etag')).toBe('"3"');
    expect((await api('GET', `${ws}/agents/${agentId}`)).body.pinnedVersion).toBe(1);
    // Pinning what is pinned changes nothing and records nothing.
    expect((await api('PUT', `${ws}/agents/${agentId}/pin`, { version: 1 })).status).toBe(200);
    const pinFacts = await factsOf(agentId, 'agent.pinned');
    expect(pinFacts).toHaveLength(1);
    expect(pinFacts[0].payload).toEqual({ version: 3, name: 'deployer', enabled: true, pinnedVersion: 1 });
    expect(pinFacts[0].actor).toMatchObject({ type: 'member' });

    await deployRequested();
    expect((await api('POST', `${ws}/agents/${agentId}/runs`, { input: 'deploy now' })).body.agentVersion).toBe(1);
    const afterRollback = await endedRuns(agentId, 2);
    expect(afterRollback.map((run) => [run.origin_type, run.agent_version, run.summary])).toEqual(
      expect.arrayContaining([
        ['trigger', 1, 'answer from v1'],
        ['manual', 1, 'answer from v1'],
      ]),
    );

    // A new version while pinned does not move the pin: facts still run version 1.
    expect((await api('PUT', `${ws}/agents/${agentId}`, spec('answer from v4'))).body).toMatchObject({ version: 4, pinnedVersion: 1 });
    await deployRequested();
    expect((await endedRuns(agentId, 3)).at(-1)).toMatchObject({ agent_version: 1, summary: 'answer from v1' });

    // A teammate's turn runs the pin too (teammate_wake).
    await api('PUT', `${ws}/agents/${agentId}/pin`, { version: 2 });
    expect((await api('POST', `${ws}/teammates`, { name: 'dep', agentId })).status).toBe(201);
    expect((await api('POST', `${ws}/teammates/dep/messages`, { content: 'hello' })).body.woke).toBe(true);
    const turn = await endedRuns(agentId, 4);
    expect(turn.at(-1)).toMatchObject({ origin_type: 'teammate', agent_version: 2, summary: 'answer from v2' });
    await api('DELETE', `${ws}/teammates/dep`);

    const unpinned = await api('DELETE', `${ws}/agents/${agentId}/pin`);
    expect(unpinned.body).toMatchObject({ version: 4, pinnedVersion: null });
    expect((await factsOf(agentId, 'agent.unpinned')).map((f) => f.payload.pinnedVersion)).toEqual([null]);
    await deployRequested();
    expect((await endedRuns(agentId, 5)).at(-1)).toMatchObject({ origin_type: 'trigger', agent_version: 4, summary: 'answer from v4' });

    // The fleet filters runs by version.
    const byVersion = await viewer('GET', `${ws}/runs?agentId=${agentId}&agentVersion=1`);
    expect(byVersion.body.runs.map((run: { agentVersion: number }) => run.agentVersion)).toEqual([1, 1, 1]);
    expect((await viewer('GET', `${ws}/runs?agentId=${agentId}&agentVersion=3`)).body.runs).toEqual([]);
  });

  it('diffs any two versions: changed top-level fields, a JSON Patch, the two spec hashes', async () => {
    const diff = await viewer('GET', `${ws}/agents/${agentId}/versions/1/diff/3`);
    expect(diff.status).toBe(200);
    expect(diff.body).toMatchObject({ agentId, from: 1, to: 3, changedFields: ['instructions', 'script'] });
    expect(diff.body.patch).toEqual([
      { op: 'replace', path: '/instructions', value: 'You deploy carefully.' },
      { op: 'replace', path: '/script/0/say', value: 'answer from v3' },
    ]);
    expect(diff.body.fromSpecHash).not.toBe(diff.body.toSpecHash);
    const back = await viewer('GET', `${ws}/agents/${agentId}/versions/3/diff/1`);
    expect(back.body.patch).toEqual([
      { op: 'replace', path: '/instructions', value: 'You deploy.' },
      { op: 'replace', path: '/script/0/say', value: 'answer from v1' },
    ]);
    const same = await viewer('GET', `${ws}/agents/${agentId}/versions/2/diff/2`);
    expect(same.body).toMatchObject({ changedFields: [], patch: [] });
    expect(same.body.fromSpecHash).toBe(same.body.toSpecHash);
  });

  it('tags a version, moves the tag, and removes it from the version carrying it', async () => {
    const tagged = await api('PUT', `${ws}/agents/${agentId}/versions/2/tags/stable`);
    expect(tagged.status).toBe(200);
    expect(tagged.body.tags).toEqual([expect.objectContaining({ tag: 'stable', version: 2 })]);
    await api('PUT', `${ws}/agents/${agentId}/versions/1/tags/first`);
    const moved = await api('PUT', `${ws}/agents/${agentId}/versions/3/tags/stable`);
    expect(moved.body.tags.map((t: { tag: string; version: number }) => [t.tag, t.version])).toEqual([
      ['first', 1],
      ['stable', 3],
    ]);
    // Putting a tag where it is records nothing.
    await api('PUT', `${ws}/agents/${agentId}/versions/3/tags/stable`);
    expect((await factsOf(agentId, 'agent.tagged')).map((f) => f.payload)).toEqual([
      { name: 'deployer', tag: 'stable', version: 2, previousVersion: null },
      { name: 'deployer', tag: 'first', version: 1, previousVersion: null },
      { name: 'deployer', tag: 'stable', version: 3, previousVersion: 2 },
    ]);
    const wrongVersion = await api('DELETE', `${ws}/agents/${agentId}/versions/2/tags/stable`);
    expect([wrongVersion.status, wrongVersion.body.error.code]).toEqual([404, 'AGENT_TAG_NOT_FOUND']);
    const removed = await api('DELETE', `${ws}/agents/${agentId}/versions/3/tags/stable`);
    expect(removed.body.tags.map((t: { tag: string }) => t.tag)).toEqual(['first']);
    expect((await factsOf(agentId, 'agent.untagged')).map((f) => f.payload)).toEqual([{ name: 'deployer', tag: 'stable', version: 3 }]);
    expect((await viewer('GET', `${ws}/agents/${agentId}/tags`)).body.tags.map((t: { tag: string }) => t.tag)).toEqual(['first']);
    // Pins and tags are in the audit trail.
    const audit = await api('GET', `${ws}/audit?kind=agent.*&limit=200`);
    const kinds = new Set(audit.body.entries.map((e: { kind: string }) => e.kind));
    for (const kind of ['agent.pinned', 'agent.unpinned', 'agent.tagged', 'agent.untagged']) expect(kinds).toContain(kind);
  });

  it('refuses a viewer every write, and bad input with a stable 4xx code, writing nothing', async () => {
    const state = async () =>
      (await pg.query(`SELECT a.pinned_version, (SELECT count(*) FROM agent_version_tags t WHERE t.agent_id = a.id)::int AS tags, (SELECT count(*) FROM platform_events)::int AS facts FROM agents a WHERE a.id = $1`, [agentId])).rows[0];
    const before = await state();
    const cases: Array<[string, () => ReturnType<typeof api>, number, string]> = [
      ['viewer pins', () => viewer('PUT', `${ws}/agents/${agentId}/pin`, { version: 1 }), 403, 'FORBIDDEN'],
      ['viewer unpins', () => viewer('DELETE', `${ws}/agents/${agentId}/pin`), 403, 'FORBIDDEN'],
      ['viewer tags', () => viewer('PUT', `${ws}/agents/${agentId}/versions/1/tags/x`), 403, 'FORBIDDEN'],
      ['viewer untags', () => viewer('DELETE', `${ws}/agents/${agentId}/versions/1/tags/first`), 403, 'FORBIDDEN'],
      ['pin of version 0', () => api('PUT', `${ws}/agents/${agentId}/pin`, { version: 0 }), 400, 'VALIDATION_FAILED'],
      ['pin of a string', () => api('PUT', `${ws}/agents/${agentId}/pin`, { version: '1' }), 400, 'VALIDATION_FAILED'],
      ['pin with an unknown field', () => api('PUT', `${ws}/agents/${agentId}/pin`, { version: 1, tag: 'x' }), 400, 'VALIDATION_FAILED'],
      ['pin without a body', () => api('PUT', `${ws}/agents/${agentId}/pin`), 400, 'VALIDATION_FAILED'],
      ['pin of a version not written', () => api('PUT', `${ws}/agents/${agentId}/pin`, { version: 99 }), 404, 'AGENT_VERSION_NOT_FOUND'],
      ['pin of a bad agent id', () => api('PUT', `${ws}/agents/nope/pin`, { version: 1 }), 400, 'VALIDATION_FAILED'],
      ["pin of another workspace's agent", () => other('PUT', `/v1/workspaces/other/agents/${agentId}/pin`, { version: 1 }), 404, 'AGENT_NOT_FOUND'],
      ['tag starting with a digit', () => api('PUT', `${ws}/agents/${agentId}/versions/1/tags/1st`), 400, 'VALIDATION_FAILED'],
      ['tag on version 0', () => api('PUT', `${ws}/agents/${agentId}/versions/0/tags/ok`), 400, 'VALIDATION_FAILED'],
      ['tag on a version not written', () => api('PUT', `${ws}/agents/${agentId}/versions/99/tags/ok`), 404, 'AGENT_VERSION_NOT_FOUND'],
      ['tag too long', () => api('PUT', `${ws}/agents/${agentId}/versions/1/tags/${'a'.repeat(65)}`), 400, 'VALIDATION_FAILED'],
      ['untag of a bad tag', () => api('DELETE', `${ws}/agents/${agentId}/versions/1/tags/${encodeURIComponent('a b')}`), 400, 'VALIDATION_FAILED'],
      ['untag of a tag never set', () => api('DELETE', `${ws}/agents/${agentId}/versions/1/tags/never`), 404, 'AGENT_TAG_NOT_FOUND'],
      ['tags of a bad agent id', () => api('GET', `${ws}/agents/x/tags`), 400, 'VALIDATION_FAILED'],
      ['tags of an unknown agent', () => api('GET', `${ws}/agents/0190a0a0-0000-7000-8000-000000000000/tags`), 404, 'AGENT_NOT_FOUND'],
      ['diff of a bad version', () => api('GET', `${ws}/agents/${agentId}/versions/1/diff/x`), 400, 'VALIDATION_FAILED'],
      ['diff to a version not written', () => api('GET', `${ws}/agents/${agentId}/versions/1/diff/99`), 404, 'AGENT_VERSION_NOT_FOUND'],
      ['runs of a negative version', () => api('GET', `${ws}/runs?agentVersion=-1`), 400, 'VALIDATION_FAILED'],
    ];
    for (const [name, call, status, code] of cases) {
      const response = await call();
      expect([name, response.status, (response.body as { error?: { code: string } }).error?.code]).toEqual([name, status, code]);
    }
    expect(await state()).toEqual(before);
  });
});
