import { Client } from 'pg';
import { mailboxStream } from '@switchyard/contracts';
import { toKey } from '@switchyard/redis';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

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
    platform = await startTestPlatform({ runners: 1 });
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    viewer = apiClient(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'dash', role: 'viewer' })).body.token);
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
    expect(turns[0]).toMatchObject({ status: 'completed', lane: `session:${mate.sessionId}`, origin: { type: 'teammate', teammateId: mate.id, name: 'bob' } });
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
    // 30 messages, one every ~70 ms, across several 900 ms turns: some land mid-turn (drained at a
    // step boundary or by the last drain), some after a turn's last drain (each such run of them is one wake).
    for (let i = 0; i < 30; i++) {
      const posted = await admin('POST', `${ws}/teammates/cyd/messages`, { content: `message ${i}` });
      expect(posted.status).toBe(202);
      ids.push(posted.body.id);
      if (posted.body.woke) wakes += 1;
      await new Promise((resolve) => setTimeout(resolve, 70));
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
