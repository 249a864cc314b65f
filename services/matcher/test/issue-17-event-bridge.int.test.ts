import { Client } from 'pg';
import { mailboxStream, STREAMS } from '@switchyard/contracts';
import { derivedId } from '@switchyard/core';
import { SessionMailbox, toKey } from '@switchyard/redis';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';

type Api = ReturnType<typeof apiClient>;

/**
 * The event bridge (issue 17, item 5; decision 0035) with every service a
 * real process: the matcher delivers the facts a teammate watches to its
 * mailbox as event messages and wakes it like a person's message does; the
 * agents' guards decide (a teammate's own task.created does not wake it,
 * another teammate's does; the depth cap ends the chain); a replayed fact or
 * a matcher that died between its post and its wake delivers once; a stopped
 * teammate and another workspace's facts get nothing.
 */
describe('issue 17: the event bridge', () => {
  let platform: TestPlatform;
  let admin: Api;
  let other: Api;
  let pg: Client;
  let quietAgent: string;
  const ws = '/v1/workspaces/acme';

  /** A scripted agent whose turn takes `steps` short model steps. */
  const quiet = (name: string) => ({
    name,
    instructions: 'Read what your mailbox holds.',
    task: 'Answer what your mailbox holds.',
    model: { provider: 'scripted', name: 'demo', params: { stepMs: 50 } },
    script: [{ say: 'noted' }],
    triggers: [{ kind: 'never.fires' }],
  });

  beforeAll(async () => {
    platform = await startTestPlatform({ matcher: true });
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    other = apiClient(platform.gatewayUrl, await platform.createWorkspace('other'));
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    quietAgent = (await admin('POST', `${ws}/agents`, quiet('listener'))).body.id;
  }, 120_000);
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  const turnsOf = async (sessionId: string) => (await pg.query(`SELECT id, status, depth FROM runs WHERE session_id = $1 ORDER BY queued_at, id`, [sessionId])).rows;
  const drained = async (sessionId: string): Promise<string[]> =>
    (await pg.query(`SELECT content->>'envelopeId' AS id FROM transcript_entries WHERE session_id = $1 AND type = 'user' AND content ? 'envelopeId' ORDER BY seq`, [sessionId])).rows.map((row) => row.id);
  const deliveriesOf = async (teammateId: string) =>
    (await pg.query(`SELECT event_id::text, event_kind, message_id::text, run_id::text FROM teammate_deliveries WHERE teammate_id = $1 ORDER BY delivered_at`, [teammateId])).rows;
  const mailboxLength = (sessionId: string) => platform.redis.redis.xlen(toKey(platform.redis.prefix, ...mailboxStream(sessionId)));
  const settled = (sessionId: string, turns = 1) =>
    waitFor(async () => {
      const all = await turnsOf(sessionId);
      return all.length >= turns && all.every((turn) => ['completed', 'failed', 'cancelled'].includes(turn.status));
    }, { timeoutMs: 60_000, what: `${turns} settled turn(s)` });
  /** Spawns a teammate and waits for its teammate.spawned fact: facts after it in the fact order reach it. */
  const spawn = async (api: Api, slug: string, body: Record<string, unknown>) => {
    const created = await api('POST', `/v1/workspaces/${slug}/teammates`, body);
    expect(created.status).toBe(201);
    await waitFor(async () => (await pg.query(`SELECT 1 FROM platform_events WHERE kind = 'teammate.spawned' AND subject_id = $1`, [created.body.id])).rowCount === 1, { timeoutMs: 20_000 });
    return created.body as { id: string; name: string; sessionId: string };
  };
  const emit = async (api: Api, slug: string, kind: string, id: string, payload: Record<string, unknown> = {}) => {
    const posted = await api('POST', `/v1/workspaces/${slug}/events`, { kind, subject: { type: 'build', id }, payload });
    expect(posted.status).toBeLessThan(300);
    return posted.body.id as string;
  };
  const delivered = (teammateId: string, eventId: string) =>
    waitFor(async () => (await deliveriesOf(teammateId)).some((row) => row.event_id === eventId), { timeoutMs: 30_000, what: 'the delivery' });

  let ada: { id: string; name: string; sessionId: string };
  let firstFact: string;

  it('a watched fact wakes an idle teammate: its turn drains the event message, attributed and delimited; message.sent records it', async () => {
    ada = await spawn(admin, 'acme', { name: 'ada', agentId: quietAgent, watch: [{ kind: 'build.*', filter: { path: 'payload.branch', op: 'eq', value: 'main' } }] });
    firstFact = await emit(admin, 'acme', 'build.failed', '7', { branch: 'main' });
    await delivered(ada.id, firstFact);
    await settled(ada.sessionId);
    const messageId = derivedId('teammate-event', ada.id, firstFact);
    expect(await deliveriesOf(ada.id)).toEqual([{ event_id: firstFact, event_kind: 'build.failed', message_id: messageId, run_id: (await turnsOf(ada.sessionId))[0].id }]);
    expect(await turnsOf(ada.sessionId)).toMatchObject([{ status: 'completed', depth: 0 }]);
    expect(await drained(ada.sessionId)).toEqual([messageId]);
    const [entry] = (await pg.query(`SELECT content FROM transcript_entries WHERE session_id = $1 AND type = 'user' AND content ? 'envelopeId'`, [ada.sessionId])).rows.map((row) => row.content);
    expect(entry.from).toEqual({ type: 'event', eventId: firstFact, kind: 'build.failed', subject: { type: 'build', id: '7' } });
    expect(entry.text).toMatch(/^\[event build\.failed — build 7\]\n<untrusted-data/);
    expect(entry.text).toContain('"branch":"main"');
    const sent = await waitFor(async () => (await pg.query(`SELECT payload FROM platform_events WHERE kind = 'message.sent' AND payload->>'messageId' = $1`, [messageId])).rows, { timeoutMs: 20_000 });
    expect(sent).toHaveLength(1);
    expect(sent[0].payload).toEqual({ messageId, sessionId: ada.sessionId, teammate: 'ada', from: 'event', senderId: firstFact, chars: expect.any(Number), woke: true });
    expect(await mailboxLength(ada.sessionId)).toBe(0);
  }, 90_000);

  it('an unwatched kind, a fact its filter refuses, and another workspace’s fact of a watched kind reach nothing', async () => {
    const oz = await spawn(other, 'other', { name: 'oz', agentId: (await other('POST', '/v1/workspaces/other/agents', quiet('theirs'))).body.id, watch: [{ kind: 'build.*' }] });
    const unwatched = await emit(admin, 'acme', 'deploy.failed', '8', { branch: 'main' });
    const filtered = await emit(admin, 'acme', 'build.failed', '9', { branch: 'dev' });
    const foreign = await emit(other, 'other', 'build.failed', '10', { branch: 'main' });
    // The later facts' deliveries show the matcher got past the earlier ones.
    await delivered(oz.id, foreign);
    const sentinel = await emit(admin, 'acme', 'build.passed', '11', { branch: 'main' });
    await delivered(ada.id, sentinel);
    expect((await deliveriesOf(ada.id)).map((row) => row.event_id)).toEqual([firstFact, sentinel]);
    expect((await deliveriesOf(oz.id)).map((row) => row.event_id)).toEqual([foreign]);
    for (const id of [unwatched, filtered, foreign]) {
      expect((await pg.query(`SELECT 1 FROM platform_events WHERE kind = 'message.sent' AND payload->>'senderId' = $1 AND payload->>'sessionId' = $2`, [id, ada.sessionId])).rowCount).toBe(0);
    }
  }, 90_000);

  it('a fact the matcher is given twice (a replay) delivers one message', async () => {
    await settled(ada.sessionId, 2);
    const turns = (await turnsOf(ada.sessionId)).length;
    const factsKey = toKey(platform.redis.prefix, STREAMS.facts);
    const entries = await platform.redis.redis.xrange(factsKey, '-', '+');
    const entry = entries.find(([, fields]) => fields.join(' ').includes(firstFact));
    expect(entry).toBeDefined();
    await platform.redis.redis.xadd(factsKey, '*', ...entry![1]);
    const sentinel = await emit(admin, 'acme', 'build.passed', '12', { branch: 'main' });
    await delivered(ada.id, sentinel);
    await settled(ada.sessionId, turns + 1);
    const messageId = derivedId('teammate-event', ada.id, firstFact);
    expect((await deliveriesOf(ada.id)).filter((row) => row.event_id === firstFact)).toHaveLength(1);
    expect((await drained(ada.sessionId)).filter((id) => id === messageId)).toHaveLength(1);
    expect((await pg.query(`SELECT 1 FROM platform_events WHERE kind = 'message.sent' AND payload->>'messageId' = $1`, [messageId])).rowCount).toBe(1);
    expect(await turnsOf(ada.sessionId)).toHaveLength(turns + 1);
  }, 90_000);

  it('a matcher that died between its post and its wake: restarted, it posts nothing twice and still wakes the teammate', async () => {
    const cy = await spawn(admin, 'acme', { name: 'cy', agentId: quietAgent, watch: [{ kind: 'alert.*' }] });
    await platform.matcher!.stop();
    const fact = await emit(admin, 'acme', 'alert.raised', '13');
    await waitFor(async () => (await pg.query(`SELECT 1 FROM platform_events WHERE id = $1`, [fact])).rowCount === 1, { timeoutMs: 20_000 });
    // What the dead matcher did before it died: the post (the one wake), not the commit.
    const mailbox = new SessionMailbox(platform.redis.redis, platform.redis.prefix);
    const messageId = derivedId('teammate-event', cy.id, fact);
    const envelope = { schemaVersion: 1 as const, id: messageId, sessionId: cy.sessionId, from: { type: 'event' as const, eventId: fact, kind: 'alert.raised', subject: { type: 'build', id: '13' } }, content: '{}', sentAt: new Date().toISOString() };
    expect(await mailbox.postResidentOnce(envelope)).toBe('woke');
    expect(await mailboxLength(cy.sessionId)).toBe(1);
    await platform.startMatcher();
    await delivered(cy.id, fact);
    await settled(cy.sessionId);
    expect(await turnsOf(cy.sessionId)).toHaveLength(1);
    expect(await drained(cy.sessionId)).toEqual([messageId]);
    expect(await mailboxLength(cy.sessionId)).toBe(0);
    await waitFor(async () => (await pg.query(`SELECT payload FROM platform_events WHERE kind = 'message.sent' AND payload->>'messageId' = $1`, [messageId])).rowCount === 1, { timeoutMs: 20_000 });
  }, 120_000);

  it("a watch entry's cooldown: a second fact of the kind within it is not delivered; a bad cooldown is a 400", async () => {
    const bad = await admin('POST', `${ws}/teammates`, { name: 'bad', agentId: quietAgent, watch: [{ kind: 'ping.*', cooldownMs: -1 }] });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const cool = await spawn(admin, 'acme', { name: 'cool', agentId: quietAgent, watch: [{ kind: 'ping.*', cooldownMs: 600_000 }] });
    const first = await emit(admin, 'acme', 'ping.sent', '20');
    await delivered(cool.id, first);
    const second = await emit(admin, 'acme', 'ping.sent', '21');
    const sentinel = await emit(admin, 'acme', 'build.passed', '22', { branch: 'main' });
    await delivered(ada.id, sentinel);
    expect((await deliveriesOf(cool.id)).map((row) => row.event_id)).toEqual([first]);
    expect((await deliveriesOf(cool.id)).map((row) => row.event_id)).not.toContain(second);
  }, 60_000);

  it('a stopped teammate receives nothing', async () => {
    const dee = await spawn(admin, 'acme', { name: 'dee', agentId: quietAgent, watch: [{ kind: 'build.*' }] });
    expect((await admin('POST', `${ws}/teammates/dee/stop`)).status).toBe(200);
    await waitFor(async () => (await pg.query(`SELECT 1 FROM platform_events WHERE kind = 'teammate.stopped' AND subject_id = $1`, [dee.id])).rowCount === 1, { timeoutMs: 20_000 });
    const fact = await emit(admin, 'acme', 'build.failed', '14', { branch: 'main' });
    await delivered(ada.id, fact);
    expect(await deliveriesOf(dee.id)).toEqual([]);
    expect(await turnsOf(dee.sessionId)).toEqual([]);
    expect(await mailboxLength(dee.sessionId)).toBe(0);
  }, 60_000);

  it('its own task.created (a tool call of its own turn) does not wake it; another teammate’s does — until the depth cap', async () => {
    // Both teammates run the same agent, whose turn creates a task: self-cause is by teammate, not by agent.
    const planner = (
      await admin('POST', `${ws}/agents`, {
        ...quiet('planner'),
        tools: { mcpServers: [], platform: ['create_task'] },
        permissionMode: 'auto',
        script: [{ tool: 'platform.create_task', arguments: { subject: 'follow up' } }, { say: 'done' }],
      })
    ).body.id;
    const pia = await spawn(admin, 'acme', { name: 'pia', agentId: planner, watch: [{ kind: 'task.created' }] });
    const pio = await spawn(admin, 'acme', { name: 'pio', agentId: planner, watch: [{ kind: 'task.created' }] });
    expect((await admin('POST', `${ws}/teammates/pia/messages`, { content: 'plan the week' })).body.woke).toBe(true);
    const tasks = async () =>
      (await pg.query(`SELECT id::text, caused_by FROM platform_events WHERE kind = 'task.created' ORDER BY seq`)).rows as Array<{ id: string; caused_by: { runId: string; depth: number } }>;
    // The chain: pia's task wakes pio, whose task wakes pia… each turn one deeper, until the cap (5) stops it.
    let seen = -1;
    await waitFor(
      async () => {
        const count = (await tasks()).length;
        const turns = [...(await turnsOf(pia.sessionId)), ...(await turnsOf(pio.sessionId))];
        const quietNow = count === seen && turns.every((turn) => ['completed', 'failed', 'cancelled'].includes(turn.status));
        seen = count;
        return quietNow;
      },
      { timeoutMs: 120_000, intervalMs: 3000, what: 'the chain of tasks ended' },
    );
    const sessionOf = new Map<string, string>();
    for (const mate of [pia, pio]) for (const turn of await turnsOf(mate.sessionId)) sessionOf.set(turn.id, mate.id);
    const all = await tasks();
    expect(all.length).toBeGreaterThanOrEqual(2);
    const received = new Map<string, string[]>([[pia.id, (await deliveriesOf(pia.id)).map((row) => row.event_id)], [pio.id, (await deliveriesOf(pio.id)).map((row) => row.event_id)]]);
    // At least pia → pio → pia: pio woken by pia's task, pia by pio's.
    expect(received.get(pia.id)!.length).toBeGreaterThanOrEqual(1);
    expect(received.get(pio.id)!.length).toBeGreaterThanOrEqual(1);
    for (const task of all) {
      const creator = sessionOf.get(task.caused_by.runId)!;
      const otherMate = creator === pia.id ? pio.id : pia.id;
      expect(received.get(creator)).not.toContain(task.id);
      // Delivered to the other teammate unless the cap stops it.
      expect(received.get(otherMate)!.includes(task.id)).toBe(task.caused_by.depth < 5);
    }
  }, 180_000);
});
