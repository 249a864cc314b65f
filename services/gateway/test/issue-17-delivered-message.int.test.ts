import { Client } from 'pg';
import { mailboxStream } from '@switchyard/contracts';
import { toKey } from '@switchyard/redis';
import { apiClient, startTestPlatform, waitFor, waitForTeammateAtRest, type TestPlatform } from '@switchyard/testing';

jest.setTimeout(180_000);

/**
 * Issue 17 (decision 0035): once a person's message is in the teammate's
 * mailbox it is delivered, whatever fails after the post. Real gateway,
 * event-log and runner processes; the commit that follows the post (the wake
 * and `message.sent`, one statement) is made to fail for one session by a
 * trigger on the outbox: the post still answers 202, the fact is recorded once
 * (through `ingest`), the message is read once, and an idle teammate's turn
 * comes from the runner's sweep of open mailboxes.
 */
describe('issue 17: a delivered message is never a 5xx', () => {
  let platform: TestPlatform;
  let pg: Client;
  let api: ReturnType<typeof apiClient>;
  const ws = '/v1/workspaces/acme';
  const agents: Record<string, string> = {};

  const agent = (name: string, stepMs: number) => ({
    name,
    instructions: 'Work with your team.',
    task: 'Answer what your mailbox holds.',
    model: { provider: 'scripted', name: 'demo', params: { stepMs } },
    script: [{ say: 'reading' }, { say: 'thinking' }, { say: 'done' }],
    triggers: [{ kind: 'never.fires' }],
  });

  beforeAll(async () => {
    platform = await startTestPlatform({ runners: 1, env: { RUNNER_SWEEP_INTERVAL_MS: '300' } });
    api = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    for (const [name, stepMs] of [['quick', 10], ['slow', 1500]] as const) agents[name] = (await api('POST', `${ws}/agents`, agent(name, stepMs))).body.id;
  }, 120_000);
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
  });

  const spawn = async (name: string, agentId: string) => {
    const spawned = await api('POST', `${ws}/teammates`, { name, agentId });
    expect(spawned.status).toBe(201);
    return spawned.body as { sessionId: string };
  };
  /** Every commit that records a message.sent for this session fails, as a starved pool or a failing wake would. */
  const failCommitsOf = (sessionId: string) =>
    pg.query(`
      CREATE FUNCTION test_fail_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.kind = 'message.sent' AND NEW.subject_id = '${sessionId}' THEN RAISE EXCEPTION 'the test fails this delivery''s commit'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER test_fail_delivery BEFORE INSERT ON fact_outbox FOR EACH ROW EXECUTE FUNCTION test_fail_delivery();`);
  const restoreCommits = () => pg.query('DROP TRIGGER test_fail_delivery ON fact_outbox; DROP FUNCTION test_fail_delivery();');
  const turnsOf = async (sessionId: string) => (await pg.query(`SELECT status::text FROM runs WHERE session_id = $1 ORDER BY queued_at, id`, [sessionId])).rows.map((row) => row.status);
  const drained = async (sessionId: string): Promise<string[]> =>
    (await pg.query(`SELECT content->>'envelopeId' AS id FROM transcript_entries WHERE session_id = $1 AND type = 'user' AND content ? 'envelopeId' ORDER BY seq`, [sessionId])).rows.map(
      (row) => row.id,
    );
  const sentFacts = async (messageId: string) =>
    (await pg.query(`SELECT payload FROM platform_events WHERE kind = 'message.sent' AND payload->>'messageId' = $1`, [messageId])).rows.map((row) => row.payload);
  /** Every turn ended and the mailbox closed idle: no more turns come until the next post. */
  const atRest = (sessionId: string) => waitForTeammateAtRest({ redis: platform.redis.redis, prefix: platform.redis.prefix, query: (sql, values) => pg.query(sql, values) }, sessionId);
  const mailboxSize = (sessionId: string) => platform.redis.redis.xlen(toKey(platform.redis.prefix, ...mailboxStream(sessionId)));
  const endedTurns = (sessionId: string, count: number) =>
    waitFor(
      async () => {
        const turns = await turnsOf(sessionId);
        return turns.length >= count && turns.every((status) => ['completed', 'failed', 'cancelled'].includes(status)) ? turns : null;
      },
      { timeoutMs: 60_000, what: `${count} turns ended` },
    );

  it('an idle teammate: the wake fails after the post → 202 woke, one message.sent, and its one turn comes from the sweep', async () => {
    const mate = await spawn('ida', agents['quick']!);
    await failCommitsOf(mate.sessionId);
    let posted;
    try {
      posted = await api('POST', `${ws}/teammates/ida/messages`, { content: 'hello' });
    } finally {
      await restoreCommits();
    }
    expect(posted.status).toBe(202);
    expect(posted.body).toEqual({ id: expect.any(String), woke: true });
    // The post's own wake failed: no turn until the sweep finds the open mailbox.
    expect(await turnsOf(mate.sessionId)).toEqual([]);
    expect(await endedTurns(mate.sessionId, 1)).toEqual(['completed']);
    expect(await drained(mate.sessionId)).toEqual([posted.body.id]);
    expect(await mailboxSize(mate.sessionId)).toBe(0);
    await waitFor(async () => (await sentFacts(posted.body.id)).length > 0, { timeoutMs: 20_000, what: 'message.sent' });
    expect(await sentFacts(posted.body.id)).toEqual([expect.objectContaining({ messageId: posted.body.id, sessionId: mate.sessionId, woke: true, from: 'user' })]);
    // No pile-up: one turn, and the next message wakes it again by itself.
    expect(await atRest(mate.sessionId)).toHaveLength(1);
    expect((await api('POST', `${ws}/teammates/ida/messages`, { content: 'again' })).body.woke).toBe(true);
    await endedTurns(mate.sessionId, 2);
  });

  it('a busy teammate: the fact commit fails after the post → 202, one message.sent, read once by the running turn', async () => {
    const mate = await spawn('bo', agents['slow']!);
    const kick = await api('POST', `${ws}/teammates/bo/messages`, { content: 'kick' });
    expect(kick.body.woke).toBe(true);
    await waitFor(async () => (await drained(mate.sessionId)).includes(kick.body.id), { timeoutMs: 30_000, intervalMs: 50, what: 'the turn running' });
    await failCommitsOf(mate.sessionId);
    let posted;
    try {
      posted = await api('POST', `${ws}/teammates/bo/messages`, { content: 'during the turn' });
    } finally {
      await restoreCommits();
    }
    expect(posted.status).toBe(202);
    expect(posted.body).toEqual({ id: expect.any(String), woke: false });
    expect(await endedTurns(mate.sessionId, 1)).toEqual(['completed']);
    expect(await drained(mate.sessionId)).toEqual([kick.body.id, posted.body.id]);
    await waitFor(async () => (await sentFacts(posted.body.id)).length > 0, { timeoutMs: 20_000, what: 'message.sent' });
    expect(await sentFacts(posted.body.id)).toEqual([expect.objectContaining({ messageId: posted.body.id, woke: false })]);
  });
});
