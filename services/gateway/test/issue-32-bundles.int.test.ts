import { Client } from 'pg';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';

type Api = ReturnType<typeof apiClient>;
interface Bundle {
  agents: Array<{
    key: string;
    name: string;
    pinnedVersion: number | null;
    versions: Array<{ version: number; specHash: string; spec: Record<string, unknown> }>;
    tags: Array<{ tag: string; version: number }>;
    collaborators: Array<{ agent: string; enabled: boolean }>;
    [field: string]: unknown;
  }>;
  secrets: string[];
  [field: string]: unknown;
}

/**
 * Issue 32 §5 (decision 0046) over real HTTP: an export → import into another
 * workspace → export again keeps every spec hash, tag, pin and rule among the
 * agents; a bundle with a changed spec, an unknown field or a collaborator it
 * does not carry is refused with its stable code and nothing written.
 */
describe('issue 32: agent bundles — export and import', () => {
  let platform: TestPlatform;
  let acme: Api;
  let beta: Api;
  let betaViewer: Api;
  let pg: Client;
  const acmeWs = '/v1/workspaces/acme';
  const betaWs = '/v1/workspaces/beta';
  let planner: string;
  let helper: string;

  beforeAll(async () => {
    platform = await startTestPlatform();
    acme = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    beta = apiClient(platform.gatewayUrl, await platform.createWorkspace('beta'));
    betaViewer = apiClient(platform.gatewayUrl, (await beta('POST', `${betaWs}/tokens`, { name: 'dash', role: 'viewer' })).body.token);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();

    const spec = (name: string, instructions: string, extra: Record<string, unknown> = {}) => ({
      name,
      instructions,
      model: { provider: 'scripted', name: 'demo' },
      script: [{ say: 'ok' }],
      triggers: [{ kind: 'scorecard.completed' }],
      ...extra,
    });
    planner = (await acme('POST', `${acmeWs}/agents`, spec('planner', 'Plan v1.'))).body.id;
    await acme('PUT', `${acmeWs}/agents/${planner}`, spec('planner', 'Plan v2.', { model: { provider: 'scripted', name: 'demo', apiKeySecret: 'OPENAI_KEY' } }));
    const mcp = { mcpServers: [{ name: 'code', transport: 'http', url: 'https://code.example/mcp', headers: { Authorization: 'Bearer literal-credential', 'X-Team': { secret: 'TEAM_ID' } } }] };
    await acme('PUT', `${acmeWs}/agents/${planner}`, spec('planner', 'Plan v3.', { tools: mcp }));
    await acme('PUT', `${acmeWs}/agents/${planner}/pin`, { version: 2 });
    await acme('PUT', `${acmeWs}/agents/${planner}/versions/3/tags/candidate`);
    await acme('PUT', `${acmeWs}/agents/${planner}/versions/1/tags/first`);
    helper = (await acme('POST', `${acmeWs}/agents`, spec('helper', 'Help.'))).body.id;
    await acme('PUT', `${acmeWs}/agents/${planner}/collaborators/${helper}`, { enabled: true });
  });
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  /** Everything an import could write in the workspace. */
  const written = async (slug: string) =>
    (
      await pg.query(
        `SELECT (SELECT count(*) FROM agents a WHERE a.workspace_id = w.id)::int AS agents,
                (SELECT count(*) FROM agent_versions v JOIN agents a ON a.id = v.agent_id WHERE a.workspace_id = w.id)::int AS versions,
                (SELECT count(*) FROM agent_collaborators c WHERE c.workspace_id = w.id)::int AS rules,
                (SELECT count(*) FROM platform_events e WHERE e.workspace_id = w.id)::int AS facts,
                (SELECT count(*) FROM fact_outbox o WHERE o.workspace_id = w.id)::int AS outbox
           FROM workspaces w WHERE w.slug = $1`,
        [slug],
      )
    ).rows[0];
  const hashes = (bundle: Bundle) => bundle.agents.map((agent) => [agent.name, agent.versions.map((v) => [v.version, v.specHash])]);
  const exportOf = async (api: Api, ws: string, id: string, query: string) => {
    const response = await api('GET', `${ws}/agents/${id}/export?${query}`);
    expect(response.status).toBe(200);
    return response.body as Bundle;
  };

  let bundle: Bundle;

  it('exports agents with their versions, tags, pin and rules among them; credentials by name only', async () => {
    bundle = await exportOf(acme, acmeWs, planner, `with=${helper}`);
    expect(bundle).toMatchObject({ format: 'switchyard.agents/v1', source: { workspace: 'acme' } });
    const [p, h] = bundle.agents;
    expect(p).toMatchObject({ key: planner, name: 'planner', enabled: true, pinnedVersion: 2, templateOrigin: null, collaborators: [{ agent: helper, enabled: true }] });
    expect(p!.tags).toEqual([
      { tag: 'candidate', version: 3 },
      { tag: 'first', version: 1 },
    ]);
    expect(p!.versions.map((v) => v.version)).toEqual([1, 2, 3]);
    expect(h).toMatchObject({ key: helper, name: 'helper', collaborators: [] });
    // The literal header is carried as a secret name; the credential itself never leaves.
    expect(JSON.stringify(bundle)).not.toContain('literal-credential');
    expect((p!.versions[2]!.spec.tools as { mcpServers: Array<{ headers: unknown }> }).mcpServers[0]!.headers).toEqual({
      Authorization: { secret: 'mcp.code.Authorization' },
      'X-Team': { secret: 'TEAM_ID' },
    });
    expect(bundle.secrets).toEqual(['OPENAI_KEY', 'TEAM_ID', 'mcp.code.Authorization']);
    // Versions chosen: the latest only, or the ones in use (latest, pinned, tagged), or a list.
    expect((await exportOf(acme, acmeWs, planner, 'versions=latest')).agents[0]!.versions.map((v) => v.version)).toEqual([3]);
    const used = (await exportOf(acme, acmeWs, planner, 'versions=used')).agents[0]!;
    expect(used.versions.map((v) => v.version)).toEqual([1, 2, 3]);
    const listed = (await exportOf(acme, acmeWs, planner, 'versions=3,1')).agents[0]!;
    expect([listed.versions.map((v) => v.version), listed.pinnedVersion, listed.tags.map((t) => t.tag)]).toEqual([[1, 3], null, ['candidate', 'first']]);
    expect(listed.collaborators).toEqual([]);
  });

  it('imports into another workspace, and exporting it again gives the same spec hashes, tags, pin and rules', async () => {
    const before = await written('beta');
    // A template origin travels with its agent (templates set it; a bundle may carry one).
    const withOrigin = structuredClone(bundle);
    withOrigin.agents[1]!.templateOrigin = { templateId: 'incident-triage', templateVersion: '1' };
    const imported = await beta('POST', `${betaWs}/agents:import`, withOrigin);
    expect(imported.status).toBe(201);
    expect(imported.body.secrets).toEqual(['OPENAI_KEY', 'TEAM_ID', 'mcp.code.Authorization']);
    const [p, h] = imported.body.agents as Array<{ key: string; id: string; pinnedVersion: number; versions: Array<{ specHash: string }> }>;
    expect(p).toMatchObject({ key: planner, name: 'planner', pinnedVersion: 2 });
    expect(p!.id).not.toBe(planner);
    expect(p!.versions.map((v) => v.specHash)).toEqual(bundle.agents[0]!.versions.map((v) => v.specHash));
    const agent = await beta('GET', `${betaWs}/agents/${p!.id}`);
    // Created disabled: its secrets are to be set first.
    expect(agent.body).toMatchObject({ version: 3, pinnedVersion: 2, enabled: false });
    expect((await written('beta')).agents).toBe(before.agents + 2);
    const rules = await beta('GET', `${betaWs}/agents/${p!.id}/collaborators`);
    expect(rules.body.collaborators).toEqual([expect.objectContaining({ agentId: h!.id, rule: 'enabled' })]);

    const again = await exportOf(beta, betaWs, p!.id, `with=${h!.id}`);
    expect(hashes(again)).toEqual(hashes(bundle));
    expect(again.agents[1]!.templateOrigin).toEqual({ templateId: 'incident-triage', templateVersion: '1' });
    expect(again.agents[0]).toMatchObject({ pinnedVersion: 2, tags: bundle.agents[0]!.tags, collaborators: [{ agent: h!.id, enabled: true }], enabled: false });
    expect((again.source as { workspace: string }).workspace).toBe('beta');
    const created = await pg.query(`SELECT kind, payload FROM platform_events e JOIN workspaces w ON w.id = e.workspace_id WHERE w.slug = 'beta' AND kind IN ('agent.created', 'agent.collaborator_changed') ORDER BY seq`);
    expect(created.rows.map((row) => row.kind)).toEqual(['agent.created', 'agent.created', 'agent.collaborator_changed']);
    expect(created.rows[0].payload).toEqual({ version: 3, name: 'planner', enabled: false, pinnedVersion: 2 });
  });

  it('refuses a changed spec, unknown fields, a foreign collaborator, a contradiction, a taken name and a viewer, writing nothing', async () => {
    const fresh = await platform.createWorkspace('gamma');
    const gamma = apiClient(platform.gatewayUrl, fresh);
    const gammaWs = '/v1/workspaces/gamma';
    const copy = (): Bundle => structuredClone(bundle);
    const tampered = copy();
    tampered.agents[0]!.versions[1]!.spec.instructions = 'Plan v2, and also exfiltrate.';
    const unknownTop = { ...copy(), extra: true };
    const unknownAgent = copy();
    unknownAgent.agents[1]!.owner = 'someone';
    const unknownVersion = copy();
    (unknownVersion.agents[0]!.versions[0] as Record<string, unknown>).note = 'x';
    const unknownSpec = copy();
    unknownSpec.agents[0]!.versions[0]!.spec.secretSauce = true;
    const foreign = copy();
    foreign.agents = [foreign.agents[0]!];
    const tagElsewhere = copy();
    tagElsewhere.agents[0]!.tags.push({ tag: 'ghost', version: 7 });
    const before = await written('gamma');
    const cases: Array<[string, Api, unknown, number, string]> = [
      ['a changed spec', gamma, tampered, 400, 'BUNDLE_SPEC_HASH_MISMATCH'],
      ['an unknown top-level field', gamma, unknownTop, 400, 'VALIDATION_FAILED'],
      ['an unknown agent field', gamma, unknownAgent, 400, 'VALIDATION_FAILED'],
      ['an unknown version field', gamma, unknownVersion, 400, 'VALIDATION_FAILED'],
      ['an unknown spec field', gamma, unknownSpec, 400, 'VALIDATION_FAILED'],
      ['a collaborator not in the bundle', gamma, foreign, 400, 'BUNDLE_COLLABORATOR_UNKNOWN'],
      ['a tag on a version not in the bundle', gamma, tagElsewhere, 400, 'BUNDLE_INCONSISTENT'],
      ['another format', gamma, { ...copy(), format: 'switchyard.agents/v9' }, 400, 'VALIDATION_FAILED'],
      ['no agents', gamma, { ...copy(), agents: [] }, 400, 'VALIDATION_FAILED'],
      ['not an object', gamma, [1, 2], 400, 'VALIDATION_FAILED'],
    ];
    for (const [name, api, body, status, code] of cases) {
      const response = await api('POST', `${gammaWs}/agents:import`, body);
      expect([name, response.status, (response.body as { error?: { code: string } }).error?.code]).toEqual([name, status, code]);
    }
    expect(await written('gamma')).toEqual(before);
    // Into beta again: the names are taken, so nothing of it is written.
    const betaBefore = await written('beta');
    const taken = await beta('POST', `${betaWs}/agents:import`, bundle);
    expect([taken.status, taken.body.error.code]).toEqual([409, 'AGENT_NAME_TAKEN']);
    const byViewer = await betaViewer('POST', `${betaWs}/agents:import`, bundle);
    expect([byViewer.status, byViewer.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect(await written('beta')).toEqual(betaBefore);
  });

  it('refuses bad export input with a stable code', async () => {
    const cases: Array<[string, string, number, string]> = [
      ['bad versions', `${acmeWs}/agents/${planner}/export?versions=some`, 400, 'VALIDATION_FAILED'],
      ['version 0', `${acmeWs}/agents/${planner}/export?versions=0`, 400, 'VALIDATION_FAILED'],
      ['a list with other agents', `${acmeWs}/agents/${planner}/export?versions=1&with=${helper}`, 400, 'VALIDATION_FAILED'],
      ['a version not written', `${acmeWs}/agents/${planner}/export?versions=9`, 404, 'AGENT_VERSION_NOT_FOUND'],
      ['a bad with', `${acmeWs}/agents/${planner}/export?with=nope`, 400, 'VALIDATION_FAILED'],
      ['an unknown agent with it', `${acmeWs}/agents/${planner}/export?with=0190a0a0-0000-7000-8000-000000000000`, 404, 'AGENT_NOT_FOUND'],
      ['an unknown query field', `${acmeWs}/agents/${planner}/export?secrets=values`, 400, 'VALIDATION_FAILED'],
    ];
    for (const [name, path, status, code] of cases) {
      const response = await acme('GET', path);
      expect([name, response.status, (response.body as { error?: { code: string } }).error?.code]).toEqual([name, status, code]);
    }
    // Another workspace's agent is not found through one's own path.
    expect((await beta('GET', `${betaWs}/agents/${planner}/export`)).status).toBe(404);
  });
});
