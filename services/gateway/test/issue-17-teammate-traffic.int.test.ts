import { Client } from 'pg';
import { mailboxStream } from '@switchyard/contracts';
import { toKey } from '@switchyard/redis';
import { apiClient, startLocalOpenAiServer, startTestPlatform, waitFor, type LocalOpenAiReply, type LocalOpenAiRequest, type LocalOpenAiServer, type TestPlatform } from '@switchyard/testing';

type Api = ReturnType<typeof apiClient>;

/** Messages each teammate sends the other. */
const MESSAGES = 100;
/** send_message's per-run cap (MAX_MESSAGES_PER_RUN): so each teammate needs at least two turns. */
const PER_TURN = 50;
const MATES = ['tia', 'tib'] as const;
type Mate = (typeof MATES)[number];
const peerOf = (mate: Mate): Mate => (mate === 'tia' ? 'tib' : 'tia');
/** A think before each send: both turns stay busy long enough to overlap, and tia's end first, so tib's later sends wake it. */
const THINK_MS: Record<Mate, number> = { tia: 20, tib: 80 };

/**
 * Issue 17's first test, at full size: two teammates, each turn a real runner
 * process executing a scripted model (the local OpenAI server answering from
 * this file), send each other 100 messages each while both are busy.
 *
 * How it reaches 100 without the depth cap or the per-run cap ending it: the
 * model sends while its teammate has sent fewer than 100, at most 50 per turn,
 * then answers `done`. Both are kicked at once by a person's message (a wake
 * with no causation: depth 0), so their turns overlap; a peer's message that
 * lands after a turn's last drain wakes a follow-up, one deeper (tia thinks
 * faster, so its turns end while tib still sends: there are such wakes). Each
 * teammate sends in exactly two turns, so a chain of follow-ups that send is
 * at most three deep and the default cap (5) never refuses a send; when both
 * have settled short of 100 the person kicks the one that is short again.
 */
describe('issue 17: two busy teammates exchange 100 messages each', () => {
  let platform: TestPlatform;
  let openai: LocalOpenAiServer;
  let admin: Api;
  let pg: Client;
  const ws = '/v1/workspaces/acme';
  const sent: Record<Mate, number> = { tia: 0, tib: 0 };

  /** The scripted model: the teammate is the request's model name (`talk-<name>`); this run's sends are its assistant tool calls since its previous turn's final answer. */
  const respond = (request: LocalOpenAiRequest): LocalOpenAiReply => {
    const me = request.body!.model.replace('talk-', '') as Mate;
    // A turn continues its teammate's conversation (decision 0052): this turn's messages follow the last final answer (one without calls).
    const { messages } = request.body!;
    const turnStart = messages.findLastIndex((message) => message.role === 'assistant' && !Array.isArray(message.tool_calls)) + 1;
    const thisTurn = messages.slice(turnStart).filter((message) => message.role === 'assistant' && Array.isArray(message.tool_calls)).length;
    if (thisTurn >= PER_TURN || sent[me] >= MESSAGES) return { type: 'message', content: 'done' };
    sent[me] += 1;
    return { type: 'message', delayMs: THINK_MS[me], toolCalls: [{ name: 'platform__send_message', arguments: { to: peerOf(me), content: `${me} #${sent[me]}` } }] };
  };

  beforeAll(async () => {
    openai = await startLocalOpenAiServer({ respond });
    // One model attempt: a retried request would count a send twice.
    platform = await startTestPlatform({ env: { OPENAI_BASE_URL: openai.baseUrl, OPENAI_API_KEY: 'sk-test-local-0123456789', MODEL_MAX_ATTEMPTS: '1' } });
    await platform.startRunner({ PLATFORM_MCP_URL: `${platform.gatewayUrl}/mcp` });
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    for (const name of MATES) {
      const agent = await admin('POST', `${ws}/agents`, {
        name: `talker-${name}`,
        instructions: 'Talk to your teammate.',
        task: 'Answer what your mailbox holds.',
        model: { provider: 'openai', name: `talk-${name}` },
        tools: { mcpServers: [], platform: ['send_message'] },
        permissionMode: 'auto',
        triggers: [{ kind: 'never.fires' }],
        budget: { maxTurns: 200 },
      });
      expect(agent.status).toBe(201);
      expect((await admin('POST', `${ws}/teammates`, { name, agentId: agent.body.id })).status).toBe(201);
    }
  }, 240_000);
  afterAll(async () => {
    await pg?.end();
    await platform?.stop();
    await openai?.close();
  });

  const sessionOf = async (name: Mate): Promise<string> => (await admin('GET', `${ws}/teammates/${name}`)).body.sessionId;
  const turnsOf = async (sessionId: string) => (await pg.query(`SELECT id::text, status FROM runs WHERE session_id = $1 ORDER BY queued_at, id`, [sessionId])).rows;
  const allSettled = async (sessions: string[]) => {
    const turns = (await Promise.all(sessions.map(turnsOf))).flat();
    return turns.length > 0 && turns.every((turn) => ['completed', 'failed', 'cancelled'].includes(turn.status));
  };
  /** What the session's turns drained, in transcript order: envelope id, the turn, the text and sender as recorded. */
  const drainedBy = async (sessionId: string) =>
    (
      await pg.query(`SELECT run_id::text, content FROM transcript_entries WHERE session_id = $1 AND type = 'user' AND content ? 'envelopeId' ORDER BY seq`, [sessionId])
    ).rows.map((row) => ({ id: row.content.envelopeId as string, runId: row.run_id as string, text: row.content.text as string, from: row.content.from }));
  /** The send_message calls the session's turns made, in order. */
  const sendsOf = async (sessionId: string) =>
    (await pg.query(`SELECT content FROM transcript_entries WHERE session_id = $1 AND type = 'tool' ORDER BY seq`, [sessionId])).rows.map((row) => row.content);
  const messageFacts = async (sessionId: string, count: number) =>
    waitFor(
      async () => {
        const rows = (await pg.query(`SELECT payload FROM platform_events WHERE kind = 'message.sent' AND payload->>'sessionId' = $1 ORDER BY seq`, [sessionId])).rows.map((row) => row.payload);
        return rows.length === count ? rows : null;
      },
      { timeoutMs: 30_000, what: 'every message.sent fact relayed' },
    );

  it('every message is drained exactly once, in order per sender, attributed; follow-up turns equal the messages that found a teammate idle', async () => {
    const sessions = { tia: await sessionOf('tia'), tib: await sessionOf('tib') };
    const kicks: Record<Mate, string[]> = { tia: [], tib: [] };
    let followUpTurns = 0;
    const kick = async (name: Mate) => {
      const posted = await admin('POST', `${ws}/teammates/${name}/messages`, { content: `go on, ${name}` });
      expect(posted.status).toBe(202);
      // Kicked only when every turn has ended: the kick is what wakes it.
      expect(posted.body.woke).toBe(true);
      kicks[name].push(posted.body.id);
    };
    await Promise.all(MATES.map(kick));
    for (let round = 0; ; round++) {
      await waitFor(() => allSettled(Object.values(sessions)), { timeoutMs: 120_000, what: 'both teammates idle' });
      const short = MATES.filter((name) => sent[name] < MESSAGES);
      if (short.length === 0) break;
      expect(round).toBeLessThan(4);
      await Promise.all(short.map(kick));
    }

    for (const name of MATES) {
      const peer = peerOf(name);
      const session = sessions[name];
      // Every send the model asked for was delivered (none refused by the depth or per-run cap), in order.
      const sends = await sendsOf(sessions[peer]);
      expect(sends).toHaveLength(MESSAGES);
      expect(sends.filter((call) => call.ok !== true)).toEqual([]);
      // The tool's answer `{delivered: [{to, id, woke}]}`, as the result text holds it (JSON inside JSON).
      const sentIds = sends.map((call) => /\\*"id\\*":\\*"([0-9a-f-]{36})/.exec(JSON.stringify(call.result))?.[1]);
      expect(sentIds.every(Boolean)).toBe(true);

      const drained = await drainedBy(session);
      const facts = await messageFacts(session, MESSAGES + kicks[name].length);
      // Exactly once: every delivery (the peer's 100 and the kicks) drained, none twice, nothing left in the mailbox.
      expect(new Set(drained.map((entry) => entry.id)).size).toBe(drained.length);
      expect(drained.map((entry) => entry.id).sort()).toEqual(facts.map((fact) => fact.messageId).sort());
      expect(await platform.redis.redis.xlen(toKey(platform.redis.prefix, ...mailboxStream(session)))).toBe(0);
      // In order per sender, attributed as data: the peer's messages as it sent them, #1 to #100.
      const fromPeer = drained.filter((entry) => entry.from.type === 'agent');
      expect(fromPeer.map((entry) => entry.id)).toEqual(sentIds);
      fromPeer.forEach((entry, i) => {
        expect(entry.from).toMatchObject({ type: 'agent', teammate: peer });
        expect(entry.text).toMatch(new RegExp(`^\\[message from teammate ${peer}\\]\\n<untrusted-data[^>]*>[\\s\\S]*${peer} #${i + 1}\\b`));
      });
      expect(drained.filter((entry) => entry.from.type === 'user').map((entry) => entry.id)).toEqual(kicks[name]);

      // No pile-up, no lost wake: each turn is one wake — the message that found the mailbox closed
      // (after the last turn's last drain) is the first its turn drains — and every other message rode along.
      const turns = await turnsOf(session);
      expect(turns.every((turn) => turn.status === 'completed')).toBe(true);
      const woke = facts.filter((fact) => fact.woke).map((fact) => fact.messageId);
      expect(turns).toHaveLength(woke.length);
      const firstDrained = turns.map((turn) => drained.find((entry) => entry.runId === turn.id)?.id);
      expect([...firstDrained].sort()).toEqual([...woke].sort());
      const followUps = woke.filter((id) => !kicks[name].includes(id));
      expect(turns.length - kicks[name].length).toBe(followUps.length);
      followUpTurns += followUps.length;
      // Both busy: messages that landed during a turn rode along in it, with no turn of their own (how
      // many depends on the machine's timing: once a teammate has sent its 100 its turns are one answer
      // long, and each peer message after one's last drain wakes the next).
      expect(fromPeer.length - followUps.length).toBeGreaterThan(0);
    }
    // The wake of a follow-up was exercised, not only the drain at a step boundary.
    expect(followUpTurns).toBeGreaterThanOrEqual(1);
  }, 300_000);
});
