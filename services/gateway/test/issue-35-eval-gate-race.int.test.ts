import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';

jest.setTimeout(180_000);

/**
 * Issue 35 leftover (decision 0058, "No save runs an unevaluated version of a
 * gated agent"): the gate's check and the write it allows are one step under
 * the agent's row lock. Two writers race on each of several gated agents that
 * run their pinned version 1: an unpin (allowed while version 1 is the latest:
 * it changes nothing that runs) and a save of version 2 (allowed while the
 * agent is pinned). Each alone is fine; both together would run version 2,
 * which no eval passed. Exactly one of them must win, the other `409 EVAL_GATE`.
 */
describe('issue 35: the eval gate holds against two concurrent writers', () => {
  let platform: TestPlatform;
  let admin: ReturnType<typeof apiClient>;
  let suiteId: string;
  const AGENTS = 12;
  const spec = (instructions: string) => ({
    name: 'gated',
    instructions,
    model: { provider: 'scripted', name: 'demo' },
    script: [{ say: 'done' }],
    triggers: [{ kind: 'build.*' }],
    evalGate: { suite: suiteId, trials: 1 },
  });

  beforeAll(async () => {
    platform = await startTestPlatform();
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    const suite = await admin('POST', '/v1/workspaces/acme/eval-suites', { name: 'gate', cases: [{ fact: { kind: 'build.done', subject: { type: 'build', id: 'B' } }, expect: { status: 'completed' } }] });
    expect(suite.status).toBe(201);
    suiteId = suite.body.id;
  });
  afterAll(async () => {
    await platform?.stop();
  });

  /** A gated agent enabled on its pinned version 1 (the enable overridden by an admin: no eval ran). */
  const pinnedGatedAgent = async (i: number): Promise<string> => {
    const created = await admin('POST', '/v1/workspaces/acme/agents', { ...spec('Version 1.'), name: `gated-${i}`, enabled: false });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await admin('PUT', `/v1/workspaces/acme/agents/${id}/pin`, { version: 1 })).status).toBe(200);
    expect((await admin('POST', `/v1/workspaces/acme/agents/${id}/enable`, { overrideEvalGate: { reason: 'set-up of a race test' } })).status).toBe(200);
    return id;
  };

  it('lets exactly one of an unpin and a save of a new version through; version 2 never runs unevaluated', async () => {
    const ids = await Promise.all(Array.from({ length: AGENTS }, (_, i) => pinnedGatedAgent(i)));
    const raced = await Promise.all(
      ids.map(async (id, i) => {
        const [unpin, save] = await Promise.all([
          admin('DELETE', `/v1/workspaces/acme/agents/${id}/pin`),
          admin('PUT', `/v1/workspaces/acme/agents/${id}`, { ...spec('Version 2.'), name: `gated-${i}` }),
        ]);
        return { unpin, save, agent: (await admin('GET', `/v1/workspaces/acme/agents/${id}`)).body };
      }),
    );
    for (const { unpin, save, agent } of raced) {
      const statuses = [unpin.status, save.status];
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      const refused = unpin.status === 409 ? unpin : save;
      expect([refused.status, refused.body.error.code]).toEqual([409, 'EVAL_GATE']);
      // What runs is the latest unless pinned: never version 2 of an enabled agent.
      const runs = agent.pinnedVersion ?? agent.version;
      expect({ enabled: agent.enabled, runs }).toEqual({ enabled: true, runs: 1 });
    }
  });
});
