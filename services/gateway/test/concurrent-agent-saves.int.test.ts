import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';

/** Saves racing in one workspace are each answered as one at a time would be: never a 5xx. */
describe('concurrent agent saves', () => {
  let platform: TestPlatform;
  let admin: ReturnType<typeof apiClient>;
  const spec = (name: string) => ({ name, instructions: 'Do it.', model: { provider: 'scripted', name: 'demo' }, script: [{ say: 'done' }], triggers: [{ kind: 'build.*' }] });

  beforeAll(async () => {
    platform = await startTestPlatform();
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
  }, 180_000);
  afterAll(async () => {
    await platform?.stop();
  });

  it('creates 24 agents at once, each 201; 8 more with taken names each 409', async () => {
    const created = await Promise.all(Array.from({ length: 24 }, (_, i) => admin('POST', '/v1/workspaces/acme/agents', spec(`agent-${i}`))));
    const failed = created.filter((answer) => answer.status !== 201);
    if (failed.length > 0) throw new Error(`${JSON.stringify(failed.map((f) => f.body))}\n${platform.gateway.output().slice(-4000)}`);
    const taken = await Promise.all(Array.from({ length: 8 }, (_, i) => admin('POST', '/v1/workspaces/acme/agents', spec(`agent-${i}`))));
    expect(taken.map((answer) => answer.status)).toEqual(Array(8).fill(409));
    expect((await admin('GET', '/v1/workspaces/acme/agents?limit=100')).body.agents).toHaveLength(24);
  });
});
