import { Client } from 'pg';
import {
  apiClient,
  longestSharedPrefix,
  startAnotherGateway,
  startLocalOpenAiServer,
  startTestPlatform,
  waitForTurnsEnded,
  type LocalOpenAiReply,
  type LocalOpenAiRequest,
  type LocalOpenAiServer,
  type ServiceProcess,
  type TestPlatform,
} from '@switchyard/testing';
import { COMPACTION_PROMPT } from '../src/loop/compaction';

jest.setTimeout(240_000);

/**
 * Issue 31 items 1–3 (decision 0052): a teammate is one conversation. Real
 * gateway, event-log and runner processes. A scripted teammate whose answer
 * is computed from the messages it is sent (`{{recall}}`) recalls in turn 5
 * what it was told in turn 1, across a restart of every service; against the
 * local OpenAI-compatible server, a session past its budget compacts (the
 * next request carries the summary and the recent turns only, every raw
 * entry stays readable, the outcome counts the summary call), and two
 * consecutive turns share their request's prefix.
 */
describe('issue 31: teammates that remember', () => {
  let platform: TestPlatform;
  let openai: LocalOpenAiServer;
  let pg: Client;
  let api: ReturnType<typeof apiClient>;
  let token: string;
  const ws = '/v1/workspaces/acme';
  const restarted: ServiceProcess[] = [];

  /** The summarizer is told COMPACTION_PROMPT; every other request is a turn, answered `ack`. */
  const respond = (request: LocalOpenAiRequest): LocalOpenAiReply => {
    const first = request.body!.messages[0];
    if (first?.content === COMPACTION_PROMPT) return { type: 'message', content: 'SUMMARY: the person sent M1 and M2 with padding.' };
    return { type: 'message', content: `ack ${request.body!.messages.length}` };
  };

  beforeAll(async () => {
    openai = await startLocalOpenAiServer({ respond, countTokens: true });
    platform = await startTestPlatform({ runners: 1, env: { OPENAI_BASE_URL: openai.baseUrl, OPENAI_API_KEY: 'sk-test-local-0123456789', MODEL_MAX_ATTEMPTS: '1' } });
    token = await platform.createWorkspace('acme');
    api = apiClient(platform.gatewayUrl, token);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg?.end();
    await Promise.all(restarted.map((proc) => proc.stop('SIGTERM')));
    await platform?.stop();
    await openai?.close();
  });

  const createAgent = async (name: string, model: Record<string, unknown>, script?: unknown[]) => {
    const created = await api('POST', `${ws}/agents`, {
      name,
      instructions: 'You are a teammate with a long memory.',
      task: 'Answer what your mailbox holds.',
      model,
      ...(script ? { script } : {}),
      triggers: [{ kind: 'never.fires' }],
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const turnsOf = async (sessionId: string) =>
    (await pg.query(`SELECT id::text, status::text, outcome FROM runs WHERE session_id = $1 ORDER BY queued_at, id`, [sessionId])).rows as Array<{ id: string; status: string; outcome: Record<string, any> }>;
  const turnEnded = (sessionId: string, count: number) =>
    waitForTurnsEnded<{ id: string; status: string; outcome: Record<string, any> }>((sql, values) => pg.query(sql, values), sessionId, count, { columns: 'id::text, status::text, outcome', timeoutMs: 60_000 });
  /** A person's message, then its turn to its end (each message finds the teammate idle: one turn each). */
  const turn = async (client: typeof api, name: string, sessionId: string, count: number, content: string) => {
    const posted = await client('POST', `${ws}/teammates/${name}/messages`, { content });
    expect(posted.status).toBe(202);
    expect(posted.body.woke).toBe(true);
    const turns = await turnEnded(sessionId, count);
    expect(turns.at(-1)!.status).toBe('completed');
    return turns.at(-1)!;
  };

  it('a session past its budget compacts: the next request is the summary and the recent turns, every raw entry stays readable, the outcome counts the summary call', async () => {
    const agentId = await createAgent('compactor', { provider: 'openai', name: 'mem-compact' });
    const spawned = await api('POST', `${ws}/teammates`, { name: 'cora', agentId, memory: { maxContextTokens: 1000, keepRecentTurns: 2 } });
    expect(spawned.status).toBe(201);
    const { sessionId } = spawned.body as { sessionId: string };
    const pad = 'x'.repeat(1200);
    const requestsOf = () => openai.requests.filter((request) => request.body?.model === 'mem-compact');
    const turnRequests: LocalOpenAiRequest[] = [];
    for (let n = 1; n <= 5; n++) {
      await turn(api, 'cora', sessionId, n, `M${n} ${pad}`);
      turnRequests.push(requestsOf().filter((request) => request.body!.messages[0]!.content !== COMPACTION_PROMPT).at(-1)!);
    }
    // Turns 1–4 fit (the head and at most 3 turns of ~300 tokens); turn 5 starts past 1,000 tokens and compacts turns 1–2.
    const summaries = requestsOf().filter((request) => request.body!.messages[0]!.content === COMPACTION_PROMPT);
    expect(summaries).toHaveLength(1);
    expect(JSON.stringify(summaries[0]!.body!.messages)).toContain('M1 ');
    const fifth = JSON.stringify(turnRequests[4]!.body!.messages);
    expect(fifth).toContain('SUMMARY: the person sent M1 and M2');
    expect(fifth).not.toContain('M1 x');
    expect(fifth).not.toContain('M2 x');
    for (const kept of ['M3 x', 'M4 x', 'M5 x']) expect(fifth).toContain(kept);
    expect(turnRequests[4]!.body!.messages[0]).toMatchObject({ role: 'system' });

    // Every raw entry is still in the transcript API, and the compaction is an entry of the turn that made it.
    const turns = await turnsOf(sessionId);
    const entries = [];
    for (const run of turns) entries.push(...(await api('GET', `${ws}/runs/${run.id}/transcript?limit=500`)).body.entries);
    const users = entries.filter((entry: { type: string }) => entry.type === 'user').map((entry: { content: { text: string } }) => entry.content.text.slice(0, 3));
    expect(users).toEqual(['Ans', 'M1 ', 'M2 ', 'M3 ', 'M4 ', 'M5 ']);
    const compaction = entries.find((entry: { type: string }) => entry.type === 'compaction');
    expect(compaction).toMatchObject({ runId: turns[4]!.id, content: { summary: 'SUMMARY: the person sent M1 and M2 with padding.', turns: 2 } });
    const m2 = entries.find((entry: { type: string; runId: string }) => entry.type === 'assistant' && entry.runId === turns[1]!.id);
    expect(compaction.content.throughSeq).toBe(m2.seq);

    // The outcome counts the summary call: its tokens are the stand-in's count of that request.
    const outcome = turns[4]!.outcome;
    const summaryTokens = Math.ceil(summaries[0]!.raw.length / 4);
    expect(outcome.compaction).toEqual({ count: 1, tokensIn: summaryTokens, tokensOut: expect.any(Number) });
    expect(outcome.tokensIn).toBe(summaryTokens + Math.ceil(turnRequests[4]!.raw.length / 4));

    // Prefix stability: turn 3's request begins with turn 2's, byte for byte, but for the new messages.
    const [second, third] = [turnRequests[1]!.raw, turnRequests[2]!.raw];
    const shared = longestSharedPrefix(third, [{ raw: second }]);
    expect(shared).toBeGreaterThanOrEqual(0.9 * second.length);
    expect(turns[2]!.outcome.cachedTokensIn).toBeGreaterThanOrEqual(Math.floor((0.9 * second.length) / 4));
  });

  it('bad memory settings: 400 with a stable code, nothing written', async () => {
    const agentId = await createAgent('badmem', { provider: 'scripted', name: 'demo' }, [{ say: 'hi' }]);
    for (const memory of [{ maxContextTokens: 10 }, { keepRecentTurns: 0 }, { keepRecentTurns: 1.5 }, { other: 1 }, 'lots']) {
      const refused = await api('POST', `${ws}/teammates`, { name: 'nadia', agentId, memory });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('VALIDATION_FAILED');
    }
    expect((await api('GET', `${ws}/teammates/nadia`)).status).toBe(404);
  });
  it("a compaction is budgeted like a model call: past the agent's maxTokens it ends the turn budget_exceeded, its tokens in the outcome; the next turn starts from its summary", async () => {
    const created = await api('POST', `${ws}/agents`, {
      name: 'frugal',
      instructions: 'You are a teammate with a small budget.',
      task: 'Answer what your mailbox holds.',
      model: { provider: 'scripted', name: 'demo' },
      script: [{ say: 'noted' }],
      triggers: [{ kind: 'never.fires' }],
      budget: { maxTokens: 100 },
    });
    expect(created.status).toBe(201);
    const spawned = await api('POST', `${ws}/teammates`, { name: 'fran', agentId: created.body.id, memory: { maxContextTokens: 1000, keepRecentTurns: 1 } });
    const { sessionId } = spawned.body as { sessionId: string };
    // The scripted model's answers cost 0 tokens; its summary is counted at four characters a token (~600 here).
    await turn(api, 'fran', sessionId, 1, `first ${'y'.repeat(2400)}`);
    await turn(api, 'fran', sessionId, 2, `second ${'y'.repeat(2400)}`);
    const posted = await api('POST', `${ws}/teammates/fran/messages`, { content: 'third' });
    expect(posted.status).toBe(202);
    const third = (await turnEnded(sessionId, 3)).at(-1)!;
    const row = (await pg.query(`SELECT status::text, reason FROM runs WHERE id = $1`, [third.id])).rows[0];
    expect(row).toEqual({ status: 'failed', reason: 'budget_exceeded' });
    expect(third.outcome.compaction).toEqual({ count: 1, tokensIn: expect.any(Number), tokensOut: expect.any(Number) });
    expect(third.outcome.tokensIn).toBeGreaterThan(100);
    expect(third.outcome.turns).toBe(0);
    // The summary was kept: the next turn starts from it instead of paying for another.
    const fourth = await turn(api, 'fran', sessionId, 4, 'fourth');
    expect(fourth.outcome.compaction).toBeUndefined();
    expect(fourth.outcome.summary).toBe('noted');
  });

  it('told X in turn 1, answers X in turn 5 after every service restarted between turns 3 and 4', async () => {
    const agentId = await createAgent('recaller', { provider: 'scripted', name: 'demo' }, [{ say: 'you told me: {{recall}}' }]);
    const spawned = await api('POST', `${ws}/teammates`, { name: 'rita', agentId });
    expect(spawned.status).toBe(201);
    expect(spawned.body.memory).toEqual({ maxContextTokens: 16_000, keepRecentTurns: 4 });
    const { sessionId } = spawned.body as { sessionId: string };
    await turn(api, 'rita', sessionId, 1, 'remember: the release is on Friday');
    await turn(api, 'rita', sessionId, 2, 'how are you?');
    await turn(api, 'rita', sessionId, 3, 'anything new?');

    await Promise.all([...platform.runners, platform.gateway, ...platform.eventLogs].map((proc) => proc.stop('SIGTERM')));
    const { gateway, url } = await startAnotherGateway(platform);
    restarted.push(gateway);
    await platform.startEventLog();
    await platform.startRunner();
    const after = apiClient(url, token);

    await turn(after, 'rita', sessionId, 4, 'still there?');
    const fifth = await turn(after, 'rita', sessionId, 5, 'what did I tell you?');
    expect(fifth.outcome.summary).toBe('you told me: the release is on Friday');
    // One conversation: the system prompt and the standing task were recorded once, by the first turn.
    const heads = await pg.query(`SELECT run_id::text FROM transcript_entries WHERE session_id = $1 AND type = 'system'`, [sessionId]);
    expect(heads.rows).toHaveLength(1);
  });

});
