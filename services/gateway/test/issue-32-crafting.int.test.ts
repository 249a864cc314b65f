import { duplicateRedis, runNewsChannel } from '@switchyard/redis';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { craftingEnv, MORE_THAN_TWO, turnMessage } from './craft-script';

jest.setTimeout(180_000);

type Api = ReturnType<typeof apiClient>;

/** The events of a crafting answer (`event:`/`data:` frames), parsed. */
const eventsOf = (text: string) =>
  text
    .split('\n\n')
    .map((frame) => frame.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice(6)) as { type: string; [field: string]: unknown });

const DRAFT = {
  name: 'draft-agent',
  instructions: 'Watch things.',
  model: { provider: 'openai', name: 'gpt-4.1-mini' },
  triggers: [{ kind: 'scorecard.completed' }],
};

/**
 * Issue 32 item 1 at the API (decision 0056): each `POST /agents/craft` is a
 * `craft` run of the workspace's built-in crafting agent, on a runner, with
 * the platform's scripted provider as its model. The conversation is the
 * runs' session: in the fleet under the crafting agent, with its transcript.
 * The answer streams on the runner's announcements of the turn's flushes
 * and ending (its safety poll set beyond the tests' deadlines).
 * Bad patches are refused with stable codes, to the page and to the model; a
 * viewer, another workspace's agent and another workspace's conversation are
 * refused before any run is made.
 */
describe('issue 32: conversational crafting at the API (a crafting run on a runner)', () => {
  let platform: TestPlatform;
  let admin: Api;
  let viewer: Api;
  let other: Api;
  let otherAgentId: string;

  beforeAll(async () => {
    // The answer's safety poll is out of the tests' reach: every event streams on the runner's announcements (run news).
    platform = await startTestPlatform({ env: { ...craftingEnv(), CRAFT_STREAM_POLL_MS: '60000' } });
    // The runner reaches the gateway's /mcp: a crafting turn's try goes through it (try_crafted_draft).
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    const created = await admin('POST', '/v1/workspaces/acme/tokens', { name: 'reader', role: 'viewer' });
    viewer = apiClient(platform.gatewayUrl, created.body.token);
    otherAgentId = (await other('POST', '/v1/workspaces/other/agents', DRAFT)).body.id;
  });
  afterAll(async () => {
    await platform?.stop();
  });

  const craft = async (api: Api, body: Record<string, unknown>, ws = 'acme') => {
    const response = await api('POST', `/v1/workspaces/${ws}/agents/craft`, body);
    return { status: response.status, body: response.body, events: response.status === 200 ? eventsOf(String(response.body)) : [] };
  };
  const runsOf = async (api: Api, ws: string) => (await api('GET', `/v1/workspaces/${ws}/runs?limit=100`)).body.runs as Array<{ id: string; agentId: string; sessionId: string; origin: { type: string } }>;
  const transcriptOf = async (runId: string) => (await admin('GET', `/v1/workspaces/acme/runs/${runId}/transcript?limit=500`)).body.entries as Array<{ type: string; content: Record<string, unknown> }>;

  it('is a turn of a crafting run: patch streamed with its draft, then the remark and done; the conversation is in the fleet with its transcript', async () => {
    const first = await craft(admin, { message: 'add a filter of more than 2 failures', draft: DRAFT });
    expect(first.status).toBe(200);
    expect(first.events.map((event) => event.type)).toEqual(['started', 'patch', 'say', 'done']);
    expect(first.events[1]).toMatchObject({ patch: [{ op: 'add', path: '/triggers/0/filter' }], draft: { name: 'draft-agent', triggers: [{ kind: 'scorecard.completed', filter: MORE_THAN_TWO }], flow: { queueCap: 100 } } });
    const { runId, sessionId, agentId } = first.events[0] as unknown as { runId: string; sessionId: string; agentId: string };

    // The built-in crafting agent, marked as such, and the turn in the fleet under it.
    const crafting = (await admin('GET', `/v1/workspaces/acme/agents/${agentId}`)).body;
    expect(crafting).toMatchObject({ spec: { name: 'switchyard-crafting', description: expect.stringMatching(/^Built-in/) } });
    const run = (await runsOf(admin, 'acme')).find((listed) => listed.id === runId);
    expect(run).toMatchObject({ agentId, sessionId, origin: { type: 'craft' }, status: 'completed' });

    // A second message continues the conversation: the same session, its own turn, the canvas it carried.
    const second = await craft(admin, { message: 'a bad mode', draft: first.events[1]!.draft, sessionId });
    expect(second.events.map((event) => event.type)).toEqual(['started', 'patch_refused', 'say', 'done']);
    expect(second.events[0]).toMatchObject({ sessionId, agentId });
    const entries = await transcriptOf(String(second.events[0]!.runId));
    expect(turnMessage(String(entries.filter((entry) => entry.type === 'user').at(-1)!.content.text)).canvas).toMatchObject({ triggers: [{ filter: MORE_THAN_TWO }] });
    // The transcript after the page is gone: the first turn's patch and remark are there.
    const earlier = await transcriptOf(runId);
    expect(earlier.filter((entry) => entry.type === 'tool').map((entry) => entry.content.name)).toEqual(['craft_agent']);
    expect(earlier.some((entry) => entry.type === 'assistant' && entry.content.text === 'noted')).toBe(true);
  });

  it('tries the draft from the crafting run: the newest fact its triggers match, in shadow, for the person crafting', async () => {
    expect((await admin('POST', '/v1/workspaces/acme/events', { kind: 'scorecard.completed', subject: { type: 'scorecard', id: 'S-9' }, payload: { failedCases: 3 } })).status).toBe(202);
    const draft = { ...DRAFT, model: { provider: 'scripted', name: 'script' }, script: [{ say: 'seen {{event.subject.id}}' }], triggers: [{ kind: 'scorecard.completed', filter: MORE_THAN_TWO }] };
    let answer: Awaited<ReturnType<typeof craft>> | undefined;
    await waitFor(async () => {
      answer = await craft(admin, { message: 'try it on the last one', draft });
      return answer.events[1]?.type !== 'try_refused' || answer.events[1]?.code !== 'NO_FACT_TO_REPLAY';
    }, { what: 'the scorecard stored', timeoutMs: 60_000 });
    expect(answer!.events[1]).toMatchObject({ type: 'try' });
    expect(answer!.events.map((event) => event.type)).toEqual(['started', 'try', 'say', 'done']);
    const tried = answer!.events[1] as unknown as { runId: string; agentId: string };
    await waitFor(async () => (await admin('GET', `/v1/workspaces/acme/runs/${tried.runId}`)).body.status === 'completed', { what: 'the try completed', timeoutMs: 60_000 });
    expect((await admin('GET', `/v1/workspaces/acme/runs/${tried.runId}`)).body).toMatchObject({ origin: { type: 'try' }, agentId: tried.agentId });
  });

  it('announces only followed runs: a crafting turn\'s ending is published, the ending of the try it started is not', async () => {
    // Every run-news channel of the platform, heard in publish order (the runner publishes on one connection).
    const listener = duplicateRedis(platform.redis.redis, { connectionName: 'test:run-news' });
    const heard: string[] = [];
    listener.on('pmessage', (_pattern: string, channel: string) => heard.push(channel));
    await listener.psubscribe(runNewsChannel(platform.redis.prefix, '*'));
    try {
      const draft = { ...DRAFT, model: { provider: 'scripted', name: 'script' }, script: [{ say: 'seen' }], triggers: [{ kind: 'scorecard.completed', filter: MORE_THAN_TWO }] };
      const answer = await craft(admin, { message: 'try it on the last one', draft });
      expect(answer.events.map((event) => event.type)).toEqual(['started', 'try', 'say', 'done']);
      const tried = answer.events[1] as unknown as { runId: string };
      await waitFor(async () => (await admin('GET', `/v1/workspaces/acme/runs/${tried.runId}`)).body.status === 'completed', { what: 'the try completed', timeoutMs: 60_000 });
      // A later turn's news comes after anything published for the try's ending, which was committed before.
      const later = await craft(admin, { message: 'a bad mode', draft: DRAFT });
      const laterRunId = String(later.events[0]!.runId);
      await waitFor(async () => heard.includes(runNewsChannel(platform.redis.prefix, laterRunId)), { what: 'the later turn announced', timeoutMs: 30_000 });
      expect(heard).toContain(runNewsChannel(platform.redis.prefix, String(answer.events[0]!.runId)));
      expect(heard).not.toContain(runNewsChannel(platform.redis.prefix, tried.runId));
    } finally {
      listener.disconnect();
    }
  });

  it("sends the model the conversation so far: a later turn answers from an earlier one's words", async () => {
    const first = await craft(admin, { message: 'remember: only the nightly suite', draft: DRAFT });
    const { sessionId } = first.events[0] as unknown as { sessionId: string };
    const later = await craft(admin, { message: 'what did I ask for?', draft: DRAFT, sessionId });
    expect(later.events.find((event) => event.type === 'say')).toEqual({ type: 'say', text: 'You asked: only the nightly suite' });
    // Another conversation does not hear it.
    const fresh = await craft(admin, { message: 'what did I ask for?', draft: DRAFT });
    expect(fresh.events.find((event) => event.type === 'say')).toEqual({ type: 'say', text: 'You asked: ' });
  });

  it.each([
    ['a move', 'PATCH_ARGUMENTS_INVALID'],
    ['a missing path', 'PATCH_PATH_NOT_FOUND'],
    ['a bad mode', 'PATCH_SPEC_INVALID'],
  ])('refuses a patch of %s with %s, to the page and to the model, changing nothing', async (message, code) => {
    const answer = await craft(admin, { message, draft: DRAFT });
    expect(answer.status).toBe(200);
    expect(answer.events.map((event) => event.type)).toEqual(['started', 'patch_refused', 'say', 'done']);
    expect(answer.events[1]).toMatchObject({ type: 'patch_refused', code });
    if (code === 'PATCH_SPEC_INVALID') expect(answer.events[1]!.issues).toContainEqual(expect.objectContaining({ path: ['permissionMode'] }));
    // The model was told the refusal as the tool's result (the transcript holds what it was sent).
    const tool = (await transcriptOf(String(answer.events[0]!.runId))).find((entry) => entry.type === 'tool')!;
    expect(JSON.parse(String(tool.content.result))).toMatchObject({ ok: false, code });
  });

  it('refuses an invalid canvas, a viewer, another workspace’s agent, another workspace’s conversation and a paused workspace before any run is made', async () => {
    const before = (await runsOf(admin, 'acme')).length;
    const invalid = await craft(admin, { message: 'hi', draft: { ...DRAFT, triggers: [] } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('VALIDATION_FAILED');
    expect(invalid.body.error.details).toContainEqual(expect.objectContaining({ path: ['draft', 'triggers'] }));
    const byViewer = await craft(viewer, { message: 'hi', draft: DRAFT });
    expect(byViewer.status).toBe(403);
    expect(byViewer.body.error.code).toBe('FORBIDDEN');
    const foreign = await craft(admin, { message: 'hi', draft: DRAFT, agentId: otherAgentId });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('AGENT_NOT_FOUND');
    // Another workspace's crafting conversation: its session is not found here, and its run is not readable.
    const theirs = await craft(other, { message: 'add a filter', draft: DRAFT }, 'other');
    const started = theirs.events[0] as unknown as { runId: string; sessionId: string };
    const hijack = await craft(admin, { message: 'add a filter', draft: DRAFT, sessionId: started.sessionId });
    expect(hijack.status).toBe(404);
    expect(hijack.body.error.code).toBe('SESSION_NOT_FOUND');
    expect((await admin('GET', `/v1/workspaces/acme/runs/${started.runId}`)).status).toBe(404);
    expect((await admin('GET', `/v1/workspaces/acme/runs/${started.runId}/transcript`)).status).toBe(404);
    await waitFor(async () => (await runsOf(admin, 'acme')).length === before, { what: 'no run made by a refused message' });
    expect((await viewer('POST', '/v1/workspaces/acme/agents', DRAFT)).status).toBe(403);
    // The kill switch: a crafting turn is a run, refused like a manual one while agents are paused.
    expect((await admin('PUT', '/v1/workspaces/acme/settings', { agentsPaused: true })).status).toBe(200);
    const paused = await craft(admin, { message: 'add a filter', draft: DRAFT });
    expect([paused.status, paused.body.error?.code]).toEqual([409, 'AGENTS_PAUSED']);
    expect((await admin('PUT', '/v1/workspaces/acme/settings', { agentsPaused: false })).status).toBe(200);
    await waitFor(async () => (await runsOf(admin, 'acme')).length === before, { what: 'no run made while paused' });
  });
});
