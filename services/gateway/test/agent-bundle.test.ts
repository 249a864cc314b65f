import { AGENT_BUNDLE_FORMAT, AgentSpecSchema, ErrorCode, type AgentBundle } from '@switchyard/contracts';
import { specHash } from '@switchyard/core';
import { buildBundle, bundleSpec, headerSecretName, planImport, secretNamesOf } from '../src/agent-bundle';
import type { StoredAgentSpec } from '../src/agent-ports';

/** The pure side of bundles (decision 0046): what an export writes and what an import plans or refuses. */
const spec = (name: string, extra: Record<string, unknown> = {}): StoredAgentSpec => {
  const { enabled: _enabled, ...parsed } = AgentSpecSchema.parse({ name, instructions: 'x', model: { provider: 'scripted', name: 'm' }, script: [{ say: 'ok' }], triggers: [{ kind: 'a.b' }], ...extra });
  return parsed;
};
const A = '0190a0a0-0000-7000-8000-00000000000a';
const B = '0190a0a0-0000-7000-8000-00000000000b';

describe('agent bundles', () => {
  it('names a literal MCP header as a secret, in secret-name characters', () => {
    expect(headerSecretName('code', 'Authorization')).toBe('mcp.code.Authorization');
    expect(headerSecretName('my-srv', "X-Key!#$%&'*+^`|~")).toBe('mcp.my-srv.X-Key____________');
    const carried = bundleSpec(spec('a', { model: { provider: 'scripted', name: 'm', apiKeySecret: 'KEY' }, tools: { mcpServers: [{ name: 'code', transport: 'http', url: 'https://x.example/mcp', headers: { A: 'literal', B: { secret: 'S' } } }] } }));
    expect(JSON.stringify(carried)).not.toContain('literal');
    expect(secretNamesOf(carried)).toEqual(['KEY', 'mcp.code.A', 'S']);
  });

  const bundle = (): AgentBundle =>
    buildBundle(
      'acme',
      [
        { id: A, name: 'a', enabled: true, latestVersion: 5, pinnedVersion: 3, templateOrigin: null, versions: [3, 5].map((version) => ({ version, spec: spec('a', { task: `v${version}` }) })), tags: [{ tag: 'old', version: 1 }, { tag: 'new', version: 5 }], collaborators: [{ agentId: B, enabled: true }, { agentId: 'elsewhere', enabled: true }] },
        { id: B, name: 'b', enabled: false, latestVersion: 1, pinnedVersion: null, templateOrigin: { templateId: 't' }, versions: [{ version: 1, spec: spec('b') }], tags: [], collaborators: [] },
      ],
      new Date('2026-12-05T00:00:00Z'),
    );

  it('exports the chosen versions with their hashes, the tags and pin on them, and rules among the exported agents', () => {
    const built = bundle();
    expect(built.format).toBe(AGENT_BUNDLE_FORMAT);
    const [a] = built.agents;
    expect(a).toMatchObject({ key: A, pinnedVersion: 3, tags: [{ tag: 'new', version: 5 }], collaborators: [{ agent: B, enabled: true }] });
    expect(a!.versions.map((v) => v.specHash)).toEqual([specHash(spec('a', { task: 'v3' })), specHash(spec('a', { task: 'v5' }))]);
  });

  it('plans an import with new ids and versions renumbered 1…n, the pin, tags and rules following', () => {
    const plans = planImport(bundle());
    expect(plans[0]).toMatchObject({ key: A, pinnedVersion: 1, tags: [{ tag: 'new', version: 2 }], collaborators: [{ agentId: plans[1]!.id, enabled: true }] });
    expect(plans[0]!.id).not.toBe(A);
    expect(plans[1]).toMatchObject({ templateOrigin: { templateId: 't' }, specs: [spec('b')] });
  });

  it.each<[string, (b: AgentBundle) => void, ErrorCode]>([
    ['a changed spec', (b) => void (b.agents[0]!.versions[0]!.spec.task = 'changed'), ErrorCode.BUNDLE_SPEC_HASH_MISMATCH],
    ['a foreign collaborator', (b) => void b.agents[0]!.collaborators.push({ agent: '0190a0a0-0000-7000-8000-0000000000ff', enabled: true }), ErrorCode.BUNDLE_COLLABORATOR_UNKNOWN],
    ['a rule to itself', (b) => void b.agents[1]!.collaborators.push({ agent: B, enabled: true }), ErrorCode.BUNDLE_COLLABORATOR_UNKNOWN],
    ['a pin outside the bundle', (b) => void (b.agents[0]!.pinnedVersion = 4), ErrorCode.BUNDLE_INCONSISTENT],
    ['versions out of order', (b) => void b.agents[0]!.versions.reverse(), ErrorCode.BUNDLE_INCONSISTENT],
    ['a tag twice', (b) => void b.agents[0]!.tags.push({ tag: 'new', version: 3 }), ErrorCode.BUNDLE_INCONSISTENT],
    ['two agents with one key', (b) => void (b.agents[1]!.key = A), ErrorCode.BUNDLE_INCONSISTENT],
    ['a name not the latest spec’s', (b) => void (b.agents[1]!.name = 'c'), ErrorCode.BUNDLE_INCONSISTENT],
  ])('refuses %s', (_name, change, code) => {
    const built = bundle();
    change(built);
    expect(() => planImport(built)).toThrow(expect.objectContaining({ code }));
  });
});
