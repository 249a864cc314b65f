import { Client } from 'pg';
import { sessionLane } from '@switchyard/runs';
import { mailboxStream } from '@switchyard/contracts';
import { toKey } from '@switchyard/redis';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { callTool, connectMcp } from './mcp-client';

type Api = ReturnType<typeof apiClient>;

/**
 * Teammates over real HTTP against the real gateway, with a real runner
 * process executing their turns (decision 0035): spawn, the roster, a
 * person's message waking an idle teammate, messages during a turn drained by
 * it or coalesced into exactly one follow-up, stop, and the door (another
 * workspace's token, viewers, bad input).
 */
describe('issue 17: teammates and the supervisor', () => {
  let platform: TestPlatform;
  let admin: Api;
  let viewer: Api;
  let other: Api;
  let pg: Client;
  let agentId: string;
  let theirAgent: string;
  let adminToken: string;
  let otherToken: string;
  let viewerToken: string;
  const ws = '/v1/workspaces/acme';

  /** A scripted agent whose turn takes three model steps of `stepMs` each (three step boundaries). */
  const busyAgent = (name: string, stepMs = 300) => ({
    name,
    instructions: 'Work with your team.',
    task: 'Answer what your mailbox holds.',
    model: { provider: 'scripted', name: 'demo', params: { stepMs } },
    script: [{ say: 'reading' }, { say: 'thinking' }, { say: 'done' }],
    triggers: [{ kind: 'never.fires' }],
  });

  beforeAll(async () => {
    platform = await startTestPlatform();
    // Turns call the platform tools (send_message) at this gateway's /mcp.
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    adminToken = await platform.createWorkspace('acme');
    otherToken = await platform.createWorkspace('other');
    admin = apiClient(platform.gatewayUrl, adminToken);
    other = apiClient(platform.gatewayUrl, otherToken);
    viewerToken = (await admin('POST', `${ws}/tokens`, { name: 'dash', role: 'viewer' })).body.token;
    viewer = apiClient(platform.gatewayUrl, viewerToken);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    agentId = (await admin('POST', `${ws}/agents`, busyAgent('worker'))).body.id;
    theirAgent = (await other('POST', '/v1/workspaces/other/agents', busyAgent('theirs'))).body.id;
  }, 120_000);
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  const turnsOf = async (sessionId: string) =>
    (await pg.query(`SELECT id, status, lane, origin FROM runs WHERE session_id = $1 ORDER BY queued_at, id`, [sessionId])).rows;
  /** Envelope ids the session's transcript recorded as user messages, in order (one per drain). */
  const drained = async (sessionId: string): Promise<string[]> =>
    (await pg.query(`SELECT content->>'envelopeId' AS id FROM transcript_entries WHERE session_id = $1 AND type = 'user' AND content ? 'envelopeId' ORDER BY seq`, [sessionId])).rows.map(
      (row) => row.id,
    );
  const factsOf = async (kind: string, subjectId: string) =>
    (await pg.query(`SELECT payload FROM platform_events WHERE kind = $1 AND subject_id = $2`, [kind, subjectId])).rows.map((row) => row.payload);
  const settled = async (sessionId: string) =>
    waitFor(async () => {
      const turns = await turnsOf(sessionId);
      return turns.length > 0 && turns.every((turn) => ['completed', 'failed', 'cancelled'].includes(turn.status));
    }, { timeoutMs: 60_000 });

  it('spawns an idle teammate (201), listed and read by name, with its teammate.spawned fact; the name is taken after', async () => {
    const spawned = await admin('POST', `${ws}/teammates`, { name: 'ada', agentId, watch: [{ kind: 'build.*' }], team: 'core' });
    expect(spawned.status).toBe(201);
    expect(spawned.body).toMatchObject({ name: 'ada', agentId, status: 'idle', team: 'core', watch: [{ kind: 'build.*' }], lastTurn: null, turns: 0 });
    expect((await viewer('GET', `${ws}/teammates`)).body.teammates.map((mate: { name: string }) => mate.name)).toEqual(['ada']);
    expect((await viewer('GET', `${ws}/teammates/ada`)).body.sessionId).toBe(spawned.body.sessionId);
    await waitFor(async () => (await factsOf('teammate.spawned', spawned.body.id)).length === 1, { timeoutMs: 20_000 });
    const again = await admin('POST', `${ws}/teammates`, { name: 'ada', agentId });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('TEAMMATE_NAME_TAKEN');
    // An idle teammate has no turn at all: nothing polls for it.
    expect(await turnsOf(spawned.body.sessionId)).toEqual([]);
  });

  it("a person's message wakes an idle teammate: one turn in lane session:<id>, origin teammate, that drains it", async () => {
    const mate = (await admin('POST', `${ws}/teammates`, { name: 'bob', agentId })).body;
    const posted = await admin('POST', `${ws}/teammates/bob/messages`, { content: 'please look at build 7' });
    expect(posted.status).toBe(202);
    expect(posted.body).toEqual({ id: expect.any(String), woke: true });
    await settled(mate.sessionId);
    const turns = await turnsOf(mate.sessionId);
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ status: 'completed', lane: sessionLane(mate.sessionId), origin: { type: 'teammate', teammateId: mate.id, name: 'bob' } });
    expect(await drained(mate.sessionId)).toEqual([posted.body.id]);
    const read = (await viewer('GET', `${ws}/teammates/bob`)).body;
    expect(read).toMatchObject({ status: 'idle', turns: 1, lastTurn: { runId: turns[0].id, status: 'completed' } });
    await waitFor(async () => (await factsOf('message.sent', mate.sessionId)).length === 1, { timeoutMs: 20_000 });
    const [sent] = await factsOf('message.sent', mate.sessionId);
    expect(sent).toMatchObject({ messageId: posted.body.id, teammate: 'bob', from: 'user', chars: 'please look at build 7'.length, woke: true });
    expect(JSON.stringify(sent)).not.toContain('build 7');
  });

  it('messages during a turn are drained once each, in order; follow-up turns equal the posts that found the teammate idle', async () => {
    const mate = (await admin('POST', `${ws}/teammates`, { name: 'cyd', agentId })).body;
    const ids: string[] = [];
    let wakes = 0;
    // 30 messages across several 900 ms turns, at most three not yet read at a time (each post waits
    // for the one three before it to be drained): some land mid-turn (drained at a step boundary or by
    // the last drain), some after a turn's last drain (each such run of them is one wake).
    for (let i = 0; i < 30; i++) {
      const posted = await admin('POST', `${ws}/teammates/cyd/messages`, { content: `message ${i}` });
      expect(posted.status).toBe(202);
      ids.push(posted.body.id);
      if (posted.body.woke) wakes += 1;
      const behind = ids[i - 2];
      if (behind) await waitFor(async () => (await drained(mate.sessionId)).includes(behind), { timeoutMs: 60_000, what: `message ${i - 2} drained` });
    }
    await settled(mate.sessionId);
    const turns = await turnsOf(mate.sessionId);
    expect(turns.every((turn) => turn.status === 'completed')).toBe(true);
    // No pile-up, no lost wake: every turn is exactly one wake, and nothing is left unread.
    expect(turns).toHaveLength(wakes);
    expect(wakes).toBeGreaterThanOrEqual(1);
    expect(wakes).toBeLessThan(30);
    expect(await drained(mate.sessionId)).toEqual(ids);
    const left = await platform.redis.redis.xlen(toKey(platform.redis.prefix, ...mailboxStream(mate.sessionId)));
    expect(left).toBe(0);
  }, 120_000);

  it('a stopped teammate refuses messages (409 TEAMMATE_STOPPED) and nothing is delivered; its teammate.stopped fact is recorded', async () => {
    const mate = (await admin('POST', `${ws}/teammates`, { name: 'dee', agentId })).body;
    const stopped = await admin('POST', `${ws}/teammates/dee/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.status).toBe('stopped');
    const refused = await admin('POST', `${ws}/teammates/dee/messages`, { content: 'hello?' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('TEAMMATE_STOPPED');
    expect(await platform.redis.redis.xlen(toKey(platform.redis.prefix, ...mailboxStream(mate.sessionId)))).toBe(0);
    expect(await turnsOf(mate.sessionId)).toEqual([]);
    await waitFor(async () => (await factsOf('teammate.stopped', mate.id)).length === 1, { timeoutMs: 20_000 });
  });

  it('two busy teammates message each other: each message drained exactly once, in order per sender, attributed; turns equal wakes', async () => {
    /** Each turn: two send_message calls to the other teammate, then a last word; ~250 ms per step. */
    const talker = (name: string, peer: string, stepMs: number) => ({
      ...busyAgent(name, stepMs),
      tools: { mcpServers: [], platform: ['send_message'] },
      permissionMode: 'auto',
      script: [
        { tool: 'platform.send_message', arguments: { to: peer, content: `first from ${name}` } },
        { tool: 'platform.send_message', arguments: { to: peer, content: `second from ${name}` } },
        { say: 'done' },
      ],
    });
    const aAgent = (await admin('POST', `${ws}/agents`, talker('talker-a', 'tib', 200))).body.id;
    const bAgent = (await admin('POST', `${ws}/agents`, talker('talker-b', 'tia', 350))).body.id;
    const a = (await admin('POST', `${ws}/teammates`, { name: 'tia', agentId: aAgent })).body;
    const b = (await admin('POST', `${ws}/teammates`, { name: 'tib', agentId: bAgent })).body;
    // One kick: tia's turn messages tib (idle: woken), whose turn answers tia (busy or idle by then), and so on.
    expect((await admin('POST', `${ws}/teammates/tia/messages`, { content: 'start' })).body.woke).toBe(true);
    // The chain ends at the causation depth cap (each wake is one deeper). A wake queues its turn before
    // send_message returns, so once every turn of both has ended, none is coming.
    await waitFor(
      async () => {
        const turns = [...(await turnsOf(a.sessionId)), ...(await turnsOf(b.sessionId))];
        return turns.length >= 3 && turns.every((turn) => ['completed', 'failed', 'cancelled'].includes(turn.status));
      },
      { timeoutMs: 90_000 },
    );
    for (const mate of [a, b]) {
      // message.sent facts are relayed from the outbox a moment after they commit.
      const drainedIds = await drained(mate.sessionId);
      const sentRows = await waitFor(
        async () => {
          const rows = (await pg.query(`SELECT payload FROM platform_events WHERE kind = 'message.sent' AND payload->>'sessionId' = $1 ORDER BY seq`, [mate.sessionId])).rows.map((row) => row.payload);
          return rows.length === drainedIds.length ? rows : null;
        },
        { timeoutMs: 20_000 },
      );
      expect(new Set(drainedIds).size).toBe(drainedIds.length);
      expect([...drainedIds].sort()).toEqual(sentRows.map((row: { messageId: string }) => row.messageId).sort());
      // In order per sender: the peer's messages (one sender, sent one after another) in the order they were sent.
      const fromPeer = sentRows.filter((row: { from: string }) => row.from === 'agent').map((row: { messageId: string }) => row.messageId);
      expect(drainedIds.filter((id) => fromPeer.includes(id))).toEqual(fromPeer);
      expect(fromPeer.length).toBeGreaterThanOrEqual(2);
      // No pile-up, no lost wake: one turn per post that found the teammate idle.
      const turns = await turnsOf(mate.sessionId);
      expect(turns).toHaveLength(sentRows.filter((row: { woke: boolean }) => row.woke).length);
      expect(turns.every((turn) => turn.status === 'completed')).toBe(true);
      // Attributed: the peer's messages reach the model as `[message from teammate <name>]`, as data.
      const peer = mate === a ? 'tib' : 'tia';
      const texts = (
        await pg.query(`SELECT content FROM transcript_entries WHERE session_id = $1 AND type = 'user' AND content->'from'->>'type' = 'agent'`, [mate.sessionId])
      ).rows.map((row) => row.content);
      expect(texts).toHaveLength(fromPeer.length);
      for (const content of texts) {
        expect(content.text).toMatch(new RegExp(`^\\[message from teammate ${peer}\\]\\n<untrusted-data`));
        expect(content.from).toMatchObject({ type: 'agent', teammate: peer });
      }
    }
  }, 150_000);

  it('send_message refuses a stopped, unknown, foreign or own recipient and oversized content with typed errors, delivering nothing', async () => {
    const mcp = await connectMcp(platform.gatewayUrl, adminToken);
    const theirs = await connectMcp(platform.gatewayUrl, otherToken);
    try {
      const live = (await admin('POST', `${ws}/teammates`, { name: 'gil', agentId })).body;
      await admin('POST', `${ws}/teammates`, { name: 'hal', agentId });
      await admin('POST', `${ws}/teammates/hal/stop`);
      const key = toKey(platform.redis.prefix, ...mailboxStream(live.sessionId));
      for (const [to, reason] of [
        [['gil', 'hal'], 'stopped'],
        ['nobody', 'unknown'],
        [['gil', 'ada-from-elsewhere'], 'unknown'],
      ] as const) {
        const refused = await callTool(mcp, 'send_message', { to, content: 'hello' });
        expect(refused.isError).toBe(true);
        expect(refused.body.error).toMatchObject({ code: 'MESSAGE_RECIPIENT_UNREACHABLE', details: { reason, reachable: expect.arrayContaining(['gil']) } });
        expect(refused.body.error.details.reachable).not.toContain('hal');
      }
      // Another workspace's token cannot reach this workspace's teammates by name or by session id.
      for (const to of ['gil', live.sessionId]) {
        const foreign = await callTool(theirs, 'send_message', { to, content: 'hello' });
        expect(foreign.body.error).toMatchObject({ code: 'MESSAGE_RECIPIENT_UNREACHABLE', details: { reason: 'unknown', reachable: [] } });
      }
      for (const args of [{ to: 'gil', content: 'x'.repeat(8_001) }, { to: ['a', 'b', 'c', 'd', 'e', 'f'], content: 'x' }, { to: [], content: 'x' }, { to: 'gil' }]) {
        const bad = await callTool(mcp, 'send_message', args);
        expect(bad.body.error.code).toBe('VALIDATION_FAILED');
      }
      expect(await platform.redis.redis.xlen(key)).toBe(0);
      const ok = await callTool(mcp, 'send_message', { to: live.sessionId, content: 'by session id' });
      expect(ok.body).toEqual({ delivered: [{ to: 'gil', id: expect.any(String), woke: true }] });
      expect(await platform.redis.redis.xlen(key)).toBe(1);
    } finally {
      await mcp.close();
      await theirs.close();
    }
  });

  it("send_message caps one run's deliveries (MESSAGE_LIMIT_EXCEEDED past 50) and a teammate cannot message itself", async () => {
    const sink = (await admin('POST', `${ws}/agents`, { ...busyAgent('sink', 0), script: [{ say: 'ok' }] })).body.id;
    const sinks = ['s1', 's2', 's3', 's4', 's5'];
    for (const name of sinks) await admin('POST', `${ws}/teammates`, { name, agentId: sink });
    const capper = (
      await admin('POST', `${ws}/agents`, {
        ...busyAgent('capper', 0),
        tools: { mcpServers: [], platform: ['send_message'] },
        permissionMode: 'auto',
        script: [
          { tool: 'platform.send_message', arguments: { to: 'cap', content: 'to myself' } },
          ...Array.from({ length: 11 }, (_, i) => ({ tool: 'platform.send_message', arguments: { to: sinks, content: `round ${i}` } })),
          { say: 'done' },
        ],
      })
    ).body.id;
    const mate = (await admin('POST', `${ws}/teammates`, { name: 'cap', agentId: capper })).body;
    await admin('POST', `${ws}/teammates/cap/messages`, { content: 'go' });
    await settled(mate.sessionId);
    const calls = (await pg.query(`SELECT content FROM transcript_entries WHERE session_id = $1 AND type = 'tool' ORDER BY seq`, [mate.sessionId])).rows.map((row) => row.content);
    expect(calls).toHaveLength(12);
    expect(calls[0].ok).toBe(false);
    expect(JSON.stringify(calls[0])).toContain('MESSAGE_RECIPIENT_UNREACHABLE');
    expect(calls.slice(1, 11).every((call) => call.ok === true)).toBe(true);
    expect(calls[11].ok).toBe(false);
    expect(JSON.stringify(calls[11])).toContain('MESSAGE_LIMIT_EXCEEDED');
    // 50 delivered, 10 per sink; none to itself.
    for (const name of sinks) {
      const sinkMate = (await viewer('GET', `${ws}/teammates/${name}`)).body;
      await waitFor(async () => (await pg.query(`SELECT count(*)::int AS n FROM platform_events WHERE kind = 'message.sent' AND payload->>'sessionId' = $1`, [sinkMate.sessionId])).rows[0].n === 10, { timeoutMs: 20_000 });
    }
    expect(await drained(mate.sessionId)).toHaveLength(1);
  }, 120_000);

  it("stop_teammate stops a busy teammate like POST /stop (its turn cancelled, teammate.stopped); another workspace's token or a viewer is refused", async () => {
    const mcp = await connectMcp(platform.gatewayUrl, adminToken);
    const theirs = await connectMcp(platform.gatewayUrl, otherToken);
    const dash = await connectMcp(platform.gatewayUrl, viewerToken);
    try {
      const mate = (await admin('POST', `${ws}/teammates`, { name: 'ivy', agentId })).body;
      // Another workspace's token: that name is not in its workspace, and nothing changes here.
      const foreign = await callTool(theirs, 'stop_teammate', { name: 'ivy' });
      expect(foreign).toMatchObject({ isError: true, body: { error: { code: 'TEAMMATE_NOT_FOUND' } } });
      const denied = await callTool(dash, 'stop_teammate', { name: 'ivy' });
      expect(denied).toMatchObject({ isError: true, body: { error: { code: 'FORBIDDEN', details: { required: 'member' } } } });
      for (const args of [{}, { name: 'Bad Name' }, { name: 'ivy', extra: 1 }]) {
        expect((await callTool(mcp, 'stop_teammate', args)).body.error.code).toBe('VALIDATION_FAILED');
      }
      expect((await viewer('GET', `${ws}/teammates/ivy`)).body.status).toBe('idle');
      // A turn of three 300 ms steps, stopped before it ends.
      expect((await admin('POST', `${ws}/teammates/ivy/messages`, { content: 'work' })).body.woke).toBe(true);
      const stopped = await callTool(mcp, 'stop_teammate', { name: 'ivy' });
      expect(stopped.isError).toBe(false);
      expect(stopped.body).toMatchObject({ name: 'ivy', id: mate.id, status: 'stopped', stoppedAt: expect.any(String) });
      await settled(mate.sessionId);
      expect((await turnsOf(mate.sessionId)).map((turn) => turn.status)).toEqual(['cancelled']);
      // Stopping again changes nothing: the same stop time, one fact.
      const again = await callTool(mcp, 'stop_teammate', { name: 'ivy' });
      expect(again.body.stoppedAt).toBe(stopped.body.stoppedAt);
      await waitFor(async () => (await factsOf('teammate.stopped', mate.id)).length === 1, { timeoutMs: 20_000 });
      expect((await admin('POST', `${ws}/teammates/ivy/messages`, { content: 'still there?' })).body.error.code).toBe('TEAMMATE_STOPPED');
    } finally {
      await mcp.close();
      await theirs.close();
      await dash.close();
    }
  }, 90_000);

  it("another workspace's token sees none of it, viewers cannot write, and bad input is a 4xx with a stable code, nothing written", async () => {
    const before = (await pg.query(`SELECT count(*)::int AS n FROM teammates`)).rows[0].n;
    for (const [method, path, body] of [
      ['GET', '/v1/workspaces/other/teammates/ada', undefined],
      ['POST', '/v1/workspaces/other/teammates/ada/stop', undefined],
      ['POST', '/v1/workspaces/other/teammates/ada/messages', { content: 'hi' }],
    ] as const) {
      const res = await other(method, path, body);
      expect([res.status, res.body.error.code]).toEqual([404, 'TEAMMATE_NOT_FOUND']);
    }
    expect((await other('GET', '/v1/workspaces/other/teammates')).body).toEqual({ teammates: [] });
    // Another workspace's path with this token, and another workspace's agent.
    expect((await other('GET', `${ws}/teammates`)).status).toBe(403);
    const foreignAgent = await admin('POST', `${ws}/teammates`, { name: 'eve', agentId: theirAgent });
    expect([foreignAgent.status, foreignAgent.body.error.code]).toEqual([404, 'AGENT_NOT_FOUND']);
    expect((await viewer('POST', `${ws}/teammates`, { name: 'fay', agentId })).status).toBe(403);
    expect((await viewer('POST', `${ws}/teammates/ada/messages`, { content: 'x' })).status).toBe(403);
    for (const body of [{}, { name: 'Bad Name', agentId }, { name: 'ok', agentId: 'nope' }, { name: 'ok', agentId, watch: [{ kind: '' }] }, { name: 'ok', agentId, extra: 1 }]) {
      const res = await admin('POST', `${ws}/teammates`, body);
      expect([res.status, res.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    }
    for (const body of [{}, { content: '' }, { content: 'x'.repeat(32_001) }, { content: 5 }]) {
      const res = await admin('POST', `${ws}/teammates/ada/messages`, body);
      expect([res.status, res.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    }
    expect((await admin('GET', `${ws}/teammates/NOT%20A%20NAME`)).status).toBe(400);
    expect((await admin('GET', `${ws}/teammates/nobody`)).body.error.code).toBe('TEAMMATE_NOT_FOUND');
    expect((await pg.query(`SELECT count(*)::int AS n FROM teammates`)).rows[0].n).toBe(before);
  });
});
