import { apiClient, startLocalOpenAiServer, startTestPlatform, type LocalOpenAiReply, type LocalOpenAiRequest, type LocalOpenAiServer, type TestPlatform } from '@switchyard/testing';
import { lastMessage } from './craft-script';

jest.setTimeout(120_000);

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

/** The bad patches of the API test, by the message that asks for one. */
const BAD: Record<string, string | Record<string, unknown>> = {
  'not json': '{"patch": [',
  'a move': { patch: [{ op: 'move', from: '/name', path: '/task' }] },
  'a missing path': { patch: [{ op: 'replace', path: '/flow/nope/deeper', value: 1 }] },
  'a bad mode': { patch: [{ op: 'replace', path: '/permissionMode', value: 'yolo' }] },
};

/**
 * Issue 32 item 1 at the API (decision 0056): `POST /agents/craft` with the
 * local OpenAI-compatible server as the crafting model. Bad patches are
 * refused with stable codes, to the page and to the model; a viewer, an
 * agent-less crafting gateway and another workspace's agent are refused before
 * the model is asked.
 */
describe('issue 32: conversational crafting at the API', () => {
  let openai: LocalOpenAiServer;
  let platform: TestPlatform;
  let admin: Api;
  let viewer: Api;
  let otherAgentId: string;
  const requests: LocalOpenAiRequest[] = [];

  beforeAll(async () => {
    openai = await startLocalOpenAiServer({
      respond: (request): LocalOpenAiReply => {
        requests.push(request);
        const { text, answered } = lastMessage(request);
        if (answered) return { type: 'message', content: 'noted' };
        const bad = BAD[text];
        if (bad !== undefined) return { type: 'message', content: null, toolCalls: [{ name: 'craft_agent', arguments: bad }] };
        return { type: 'message', content: null, toolCalls: [{ name: 'craft_agent', arguments: { patch: [{ op: 'add', path: '/triggers/0/filter', value: { path: 'payload.failedCases', op: 'gt', value: 2 } }] } }] };
      },
    });
    platform = await startTestPlatform({ env: { CRAFT_MODEL_BASE_URL: openai.baseUrl } });
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    const other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    const created = await admin('POST', '/v1/workspaces/acme/tokens', { name: 'reader', role: 'viewer' });
    viewer = apiClient(platform.gatewayUrl, created.body.token);
    otherAgentId = (await other('POST', '/v1/workspaces/other/agents', DRAFT)).body.id;
  });
  afterAll(async () => {
    await platform?.stop();
    await openai?.close();
  });

  const craft = async (api: Api, body: Record<string, unknown>) => {
    const response = await api('POST', '/v1/workspaces/acme/agents/craft', body);
    return { status: response.status, body: response.body, events: response.status === 200 ? eventsOf(String(response.body)) : [] };
  };

  it('streams an accepted patch with the draft it made, then the remark and done', async () => {
    const answer = await craft(admin, { message: 'watch scorecards with more than 2 failures', draft: DRAFT });
    expect(answer.status).toBe(200);
    expect(answer.events.map((event) => event.type)).toEqual(['patch', 'say', 'done']);
    expect(answer.events[0]).toMatchObject({ patch: [{ op: 'add', path: '/triggers/0/filter' }], draft: { name: 'draft-agent', triggers: [{ kind: 'scorecard.completed', filter: { path: 'payload.failedCases', op: 'gt', value: 2 } }], flow: { queueCap: 100 } } });
  });

  it.each([
    ['not json', 'PATCH_ARGUMENTS_INVALID'],
    ['a move', 'PATCH_ARGUMENTS_INVALID'],
    ['a missing path', 'PATCH_PATH_NOT_FOUND'],
    ['a bad mode', 'PATCH_SPEC_INVALID'],
  ])('refuses a patch of %s with %s, to the page and to the model, changing nothing', async (message, code) => {
    const before = requests.length;
    const answer = await craft(admin, { message, draft: DRAFT });
    expect(answer.status).toBe(200);
    expect(answer.events.map((event) => event.type)).toEqual(['patch_refused', 'say', 'done']);
    expect(answer.events[0]).toMatchObject({ type: 'patch_refused', code });
    if (code === 'PATCH_SPEC_INVALID') expect(answer.events[0]!.issues).toContainEqual(expect.objectContaining({ path: ['permissionMode'] }));
    // The model's next call carries the refusal as the tool's result.
    const followUp = requests.slice(before)[1]!.body!.messages.at(-1)!;
    expect(followUp).toMatchObject({ role: 'tool' });
    expect(JSON.parse(String(followUp.content))).toMatchObject({ ok: false, code });
  });

  it('refuses an invalid canvas, a viewer and another workspace’s agent before the model is asked', async () => {
    const before = requests.length;
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
    expect(requests.length).toBe(before);
    // Save is the API's own create: a viewer cannot.
    expect((await viewer('POST', '/v1/workspaces/acme/agents', DRAFT)).status).toBe(403);
    expect((await viewer('GET', '/v1/workspaces/acme/agents')).body.agents).toEqual([]);
  });
});
