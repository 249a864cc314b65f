import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';
import { runAdmin } from './lib/operator-processes';

/*
 * Issue 32 §5: `npm run admin -- export-agents | import-agents` as real processes against a
 * real database. A workspace's agents go to a file and into another workspace; exporting them
 * again there gives the same spec hashes; a tampered file is refused with nothing written.
 */
jest.setTimeout(120_000);

interface Bundle {
  agents: Array<{ name: string; versions: Array<{ version: number; specHash: string; spec: { instructions: string } }> }>;
}

describe('npm run admin exports and imports agents (real processes)', () => {
  let platform: TestPlatform;
  let pg: Client;
  let env: Record<string, string>;
  let dir: string;
  const admin = (...args: string[]) => runAdmin(args, env);
  const agentCount = async (slug: string) =>
    Number((await pg.query('SELECT count(*) FROM agents a JOIN workspaces w ON w.id = a.workspace_id WHERE w.slug = $1', [slug])).rows[0].count);
  const hashes = (bundle: Bundle) => bundle.agents.map((a) => [a.name, a.versions.map((v) => v.specHash)]);

  beforeAll(async () => {
    platform = await startTestPlatform();
    env = { DATABASE_URL: platform.db.url, REDIS_URL: platform.redis.url, REDIS_PREFIX: platform.redis.prefix };
    const acme = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    await platform.createWorkspace('beta');
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    dir = await mkdtemp(path.join(tmpdir(), 'bundles-'));
    const spec = (name: string, instructions: string) => ({ name, instructions, model: { provider: 'scripted', name: 'demo' }, script: [{ say: 'ok' }], triggers: [{ kind: 'x.y' }] });
    const id = (await acme('POST', '/v1/workspaces/acme/agents', spec('alpha', 'One.'))).body.id;
    await acme('PUT', `/v1/workspaces/acme/agents/${id}`, spec('alpha', 'Two.'));
    await acme('POST', '/v1/workspaces/acme/agents', spec('bravo', 'Bravo.'));
  });
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('exports every agent to a file, imports it into another workspace, and exports the same hashes there', async () => {
    const file = path.join(dir, 'acme.json');
    const exported = await admin('export-agents', 'acme', '--out', file);
    expect(exported).toMatchObject({ code: 0 });
    expect(exported.stderr).toContain('wrote 2 agent(s)');
    const bundle = JSON.parse(await readFile(file, 'utf8')) as Bundle;
    expect(bundle.agents.map((a) => [a.name, a.versions.length])).toEqual([
      ['alpha', 2],
      ['bravo', 1],
    ]);

    const imported = await admin('import-agents', 'beta', file);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/imported alpha as [0-9a-f-]{36} \(disabled\): versions 1→1, 2→2/);
    expect(await agentCount('beta')).toBe(2);
    // The import's facts name the operator.
    const actors = await pg.query(`SELECT DISTINCT actor->>'type' AS type FROM fact_outbox o JOIN workspaces w ON w.id = o.workspace_id WHERE w.slug = 'beta' AND kind = 'agent.created'
                                   UNION SELECT DISTINCT actor->>'type' FROM platform_events e JOIN workspaces w ON w.id = e.workspace_id WHERE w.slug = 'beta' AND kind = 'agent.created'`);
    expect(actors.rows.map((row) => row.type)).toEqual(['system']);

    const again = await admin('export-agents', 'beta', 'alpha', 'bravo');
    expect(again.code).toBe(0);
    expect(hashes(JSON.parse(again.stdout) as Bundle)).toEqual(hashes(bundle));
    // One agent by name, latest version only.
    const latest = JSON.parse((await admin('export-agents', 'acme', 'alpha', '--versions', 'latest')).stdout) as Bundle;
    expect(latest.agents.map((a) => a.versions.map((v) => v.version))).toEqual([[2]]);
  });

  it('refuses a tampered bundle, a file that is not one, and a bad command line, writing nothing', async () => {
    const file = path.join(dir, 'tampered.json');
    const bundle = JSON.parse((await admin('export-agents', 'acme')).stdout) as Bundle;
    bundle.agents[0]!.versions[0]!.spec.instructions = 'Something else.';
    await writeFile(file, JSON.stringify(bundle));
    await platform.createWorkspace('gamma');
    const tampered = await admin('import-agents', 'gamma', file);
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toContain('does not match its specHash');
    const notJson = path.join(dir, 'not.json');
    await writeFile(notJson, '{');
    expect((await admin('import-agents', 'gamma', notJson)).stderr).toContain('cannot read');
    const unknown = path.join(dir, 'unknown.json');
    await writeFile(unknown, JSON.stringify({ ...bundle, extra: 1 }));
    expect((await admin('import-agents', 'gamma', unknown)).stderr).toContain('VALIDATION_FAILED');
    expect((await admin('export-agents', 'acme', 'nobody')).stderr).toContain('no live agent named nobody');
    expect((await admin('export-agents', 'acme', '--versions', 'some')).stderr).toContain('--versions "some": all, latest or used');
    expect((await admin('import-agents', 'gamma')).stderr).toContain('a bundle file is required');
    expect(await agentCount('gamma')).toBe(0);
  });
});
