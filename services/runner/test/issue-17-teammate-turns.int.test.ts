import { Client } from 'pg';
import { mailboxStream, type MailboxEnvelope } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { SessionMailbox, toKey } from '@switchyard/redis';
import { apiClient, startAnotherGateway, startTestPlatform, waitFor, waitForTeammateAtRest, waitForTurnsEnded, type ServiceProcess, type TestPlatform } from '@switchyard/testing';

jest.setTimeout(240_000);

/**
 * Issue 17 (decision 0035): a teammate loses no message when a turn does not
 * end by itself. Real gateway, event-log and runner processes: a cancelled
 * turn keeps what it never read and exactly one follow-up turn reads it; a
 * post whose poster died before queueing the wake still gets its turn (the
 * runner's sweep of open mailboxes); a runner SIGKILLed mid-turn with
 * messages pending, then every service restarted: the roster is back, the
 * lost turn is continued by the new runner (decision 0051) and reads the
 * waiting messages — each message recorded exactly once.
 */
describe('issue 17: teammate turns that fail, lose their poster or their runner', () => {
  let platform: TestPlatform;
  let pg: Client;
  let api: ReturnType<typeof apiClient>;
  let token: string;
  let agentId: string;
  const ws = '/v1/workspaces/acme';
  const restarted: ServiceProcess[] = [];
  const ENV = { RUNNER_SWEEP_INTERVAL_MS: '300', RUNNER_LEASE_MS: '3000' };

  beforeAll(async () => {
    platform = await startTestPlatform({ runners: 1, env: ENV });
    token = await platform.createWorkspace('acme');
    api = apiClient(platform.gatewayUrl, token);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    // Three model steps of 1.5 s each: messages posted during a step wait for the next boundary.
    const created = await api('POST', `${ws}/agents`, {
      name: 'slow',
      instructions: 'Work with your team.',
      task: 'Answer what your mailbox holds.',
      model: { provider: 'scripted', name: 'demo', params: { stepMs: 1500 } },
      script: [{ say: 'reading' }, { say: 'thinking' }, { say: 'done' }],
      triggers: [{ kind: 'never.fires' }],
    });
    expect(created.status).toBe(201);
    agentId = created.body.id;
  });
  afterAll(async () => {
    await pg?.end();
    await Promise.all(restarted.map((proc) => proc.stop('SIGTERM')));
    await platform?.stop();
  });

  const spawn = async (name: string) => {
    const spawned = await api('POST', `${ws}/teammates`, { name, agentId });
    expect(spawned.status).toBe(201);
    return spawned.body as { id: string; sessionId: string };
  };
  const turnsOf = async (sessionId: string) =>
    (await pg.query(`SELECT id::text, status::text, reason, origin FROM runs WHERE session_id = $1 ORDER BY queued_at, id`, [sessionId])).rows;
  /** Envelope ids the session's transcript recorded as user messages, in order. */
  const recorded = async (sessionId: string): Promise<string[]> =>
    (await pg.query(`SELECT content->>'envelopeId' AS id FROM transcript_entries WHERE session_id = $1 AND type = 'user' AND content ? 'envelopeId' ORDER BY seq`, [sessionId])).rows.map(
      (row) => row.id,
    );
  const notices = async (sessionId: string) =>
    (await pg.query(`SELECT content->>'code' AS code FROM transcript_entries WHERE session_id = $1 AND type = 'notice'`, [sessionId])).rows.map((row) => row.code);
  /** Every turn ended and the mailbox closed idle: no more turns come until the next post. */
  const atRest = (sessionId: string) => waitForTeammateAtRest({ redis: platform.redis.redis, prefix: platform.redis.prefix, query: (sql, values) => pg.query(sql, values) }, sessionId);
  const mailboxSize = (sessionId: string) => platform.redis.redis.xlen(toKey(platform.redis.prefix, ...mailboxStream(sessionId)));
  const allEnded = (sessionId: string, count: number) =>
    waitForTurnsEnded<{ id: string; status: string; reason: string | null; origin: { type: string } }>((sql, values) => pg.query(sql, values), sessionId, count, {
      columns: 'id::text, status::text, reason, origin',
    });
  const post = async (name: string, content: string, client = api) => {
    const posted = await client('POST', `${ws}/teammates/${name}/messages`, { content });
    expect(posted.status).toBe(202);
    return posted.body as { id: string; woke: boolean };
  };
  /** Waits until the turn's first step is recorded (its prompt and the kick are in the transcript): its second step runs. */
  const inSecondStep = (sessionId: string, kick: string) =>
    waitFor(async () => (await recorded(sessionId)).includes(kick), { timeoutMs: 60_000, intervalMs: 50, what: 'the first step recorded' });

  it('a cancelled turn keeps what it never read, and exactly one follow-up turn reads it', async () => {
    const mate = await spawn('ann');
    const kick = await post('ann', 'kick');
    expect(kick.woke).toBe(true);
    await inSecondStep(mate.sessionId, kick.id);
    const [first] = await turnsOf(mate.sessionId);
    // Posted during the second step; the stop ends the turn at the next boundary, before any drain is taken in.
    const m1 = await post('ann', 'one');
    const m2 = await post('ann', 'two');
    expect([m1.woke, m2.woke]).toEqual([false, false]);
    expect((await api('POST', `${ws}/runs/${first.id}/stop`)).status).toBe(202);
    const turns = await allEnded(mate.sessionId, 2);
    expect(turns.map((turn) => [turn.status, turn.origin.type])).toEqual([
      ['cancelled', 'teammate'],
      ['completed', 'teammate'],
    ]);
    expect(await recorded(mate.sessionId)).toEqual([kick.id, m1.id, m2.id]);
    // Kept, not reported as never read.
    expect(await notices(mate.sessionId)).not.toContain('mailbox_unread');
    expect(await mailboxSize(mate.sessionId)).toBe(0);
    // No pile-up: nothing else comes, and the next message is one wake again.
    expect(await atRest(mate.sessionId)).toHaveLength(2);
    expect((await post('ann', 'later')).woke).toBe(true);
    await allEnded(mate.sessionId, 3);
  });

  it('a post that woke the mailbox but whose poster died before queueing the turn: the sweep queues it, and it reads the message', async () => {
    const mate = await spawn('bea');
    const mailbox = new SessionMailbox(platform.redis.redis, platform.redis.prefix);
    const envelope: MailboxEnvelope = { schemaVersion: 1, id: newId(), sessionId: mate.sessionId, from: { type: 'system', reason: 'test' }, content: 'orphaned', sentAt: new Date().toISOString() };
    // The shared post a poster makes; its SQL wake is never made (the poster "died").
    expect(await mailbox.postResident(envelope)).toBe('woke');
    expect(await turnsOf(mate.sessionId)).toEqual([]);
    const turns = await allEnded(mate.sessionId, 1);
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ status: 'completed', origin: { type: 'teammate', name: 'bea' } });
    expect(await recorded(mate.sessionId)).toEqual([envelope.id]);
    expect(await mailbox.openSince(0)).not.toContain(mate.sessionId);
    // A post after it wakes as usual (the mailbox was closed idle by that turn).
    expect((await post('bea', 'next')).woke).toBe(true);
    await allEnded(mate.sessionId, 2);
    expect(await turnsOf(mate.sessionId)).toHaveLength(2);
  });

  it('a turn that fails before its first step keeps the messages but wakes nothing more: no turn loop; the next message is the next wake', async () => {
    // Its model's key names a secret that does not exist: every turn fails at set-up.
    const broken = await api('POST', `${ws}/agents`, {
      name: 'keyless',
      instructions: 'Work with your team.',
      model: { provider: 'openai', name: 'gpt-test', apiKeySecret: 'missing-key' },
      triggers: [{ kind: 'never.fires' }],
    });
    expect(broken.status).toBe(201);
    const spawned = await api('POST', `${ws}/teammates`, { name: 'dot', agentId: broken.body.id });
    expect(spawned.status).toBe(201);
    const sessionId = spawned.body.sessionId as string;
    expect((await post('dot', 'first')).woke).toBe(true);
    await allEnded(sessionId, 1);
    expect(await atRest(sessionId)).toEqual(['failed']);
    // Kept (nothing read it), and idle: the next post wakes exactly one turn.
    expect(await mailboxSize(sessionId)).toBe(1);
    expect((await post('dot', 'second')).woke).toBe(true);
    await allEnded(sessionId, 2);
    expect(await atRest(sessionId)).toHaveLength(2);
    expect(await mailboxSize(sessionId)).toBe(2);
  });

  it('SIGKILL of the runner mid-turn with messages pending, then every service restarted: roster back, the lost turn continued, it reads the messages, each recorded once', async () => {
    const mate = await spawn('cal');
    const kick = await post('cal', 'kick');
    await inSecondStep(mate.sessionId, kick.id);
    const pending = [await post('cal', 'pending one'), await post('cal', 'pending two')];
    expect(pending.map((p) => p.woke)).toEqual([false, false]);
    await platform.runners[0]!.stop('SIGKILL');
    await Promise.all([platform.gateway, ...platform.eventLogs].map((proc) => proc.stop('SIGTERM')));

    const { gateway, url } = await startAnotherGateway(platform);
    restarted.push(gateway);
    await platform.startEventLog();
    await platform.startRunner();
    // The same token on the new gateway: the roster and the tokens live in PostgreSQL.
    const after = apiClient(url, token);
    const roster = await after('GET', `${ws}/teammates`);
    expect(roster.body.teammates.map((m: { name: string }) => m.name)).toEqual(expect.arrayContaining(['ann', 'bea', 'cal']));
    const turns = await allEnded(mate.sessionId, 1);
    expect(turns.map((turn) => [turn.status, turn.reason])).toEqual([['completed', null]]);
    expect(await recorded(mate.sessionId)).toEqual([kick.id, ...pending.map((p) => p.id)]);
    expect(await mailboxSize(mate.sessionId)).toBe(0);
    expect(await atRest(mate.sessionId)).toHaveLength(1);
    expect((await after('GET', `${ws}/teammates/cal`)).body).toMatchObject({ status: 'idle', turns: 1 });
    // It goes on as before: the next message is one wake.
    expect((await post('cal', 'after the restart', after)).woke).toBe(true);
    await allEnded(mate.sessionId, 2);
    expect((await turnsOf(mate.sessionId)).at(-1)).toMatchObject({ status: 'completed' });
  });
});
