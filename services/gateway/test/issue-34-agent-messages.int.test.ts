import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { newId } from '@switchyard/core';
import { SqlPool } from '@switchyard/db';
import { apiClient, startTestPlatform, type TestPlatform } from '@switchyard/testing';
import { SqlAgentTokens } from '../../runner/src/adapters/sql-agent-tokens';
import { callTool, connectMcp } from './mcp-client';
import { scriptedAgent } from './run-rows';
import { AgentMessageObservationSchema, QuarantinedAgentMessageSchema } from '@switchyard/contracts';
import { sha256Hex } from '@switchyard/core';
import { defective, DEFECTS, envelope } from './agent-messages/envelopes';

type Api = ReturnType<typeof apiClient>;

/**
 * Issue 34 §2–§4: producers post agent-message/v1 envelopes to the real
 * gateway process; each post is observed once or quarantined with its reason,
 * the sender comes from the token, and nothing but hashes and metadata is
 * shown on the read API.
 */
describe('issue 34: agent-message producers, quarantine and observations', () => {
  const ws = '/v1/workspaces/notes';
  let platform: TestPlatform;
  let api: Api;
  const raw = (body: string) => api('POST', `${ws}/agent-messages`, body);

  beforeAll(async () => {
    platform = await startTestPlatform();
    api = apiClient(platform.gatewayUrl, await platform.createWorkspace('notes'));
  }, 120_000);
  afterAll(async () => {
    await platform?.stop();
  });

  it('observes a valid envelope once, with the sender from the token and the content only as its SHA-256', async () => {
    const note = envelope({ content: 'observed once' });
    const posted = await api('POST', `${ws}/agent-messages`, note);
    expect(posted.status).toBe(202);
    expect(posted.body).toMatchObject({ messageId: note.messageId, disposition: 'observed' });
    const page = await api('GET', `${ws}/agent-messages?since=${posted.body.seq - 1}`);
    const observation = AgentMessageObservationSchema.parse(page.body.observations[0]);
    expect(observation).toMatchObject({ messageId: note.messageId, sender: { type: 'member' }, contentSha256: sha256Hex('observed once'), deliveries: 1, sequence: 'first' });
    expect(JSON.stringify(page.body)).not.toContain('observed once');
    // A member asks for this one message explicitly: the text, marked untrusted.
    const content = await api('GET', `${ws}/agent-messages/${String(note.messageId)}/content`);
    expect(content.body).toEqual({ messageId: note.messageId, contentSha256: observation.contentSha256, content: 'observed once', untrusted: true });
  });

  it('refuses 400 an envelope that names its own sender, and records nothing of it', async () => {
    const note = envelope({ sender: { type: 'agent', id: 'someone-else', runId: 'r1' } });
    const posted = await api('POST', `${ws}/agent-messages`, note);
    expect(posted.status).toBe(400);
    expect(posted.body.error.code).toBe('AGENT_MESSAGE_SENDER_REFUSED');
    const page = await api('GET', `${ws}/agent-messages?since=0&limit=500`);
    expect(page.body.observations.map((o: { messageId: string }) => o.messageId)).not.toContain(note.messageId);
  });

  it('a replay of the same envelope is answered with its first seq and counted as a delivery, never observed twice', async () => {
    const note = envelope();
    const first = await api('POST', `${ws}/agent-messages`, note);
    const again = await api('POST', `${ws}/agent-messages`, note);
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ messageId: note.messageId, disposition: 'replayed', seq: first.body.seq });
    const page = await api('GET', `${ws}/agent-messages?since=${first.body.seq - 1}&limit=1`);
    expect(page.body.observations[0]).toMatchObject({ messageId: note.messageId, deliveries: 2 });
  });

  it('quarantines each kind of defect with its stable reason and bounded metadata, never the content; the next valid one is observed', async () => {
    const marker = `MARK-${randomUUID()}`;
    const earlier = envelope();
    expect((await api('POST', `${ws}/agent-messages`, earlier)).body.disposition).toBe('observed');
    for (const defect of DEFECTS) {
      const posted = await raw(defective(defect, marker, earlier));
      expect(posted.status).toBe(202);
      expect(posted.body).toMatchObject({ disposition: 'quarantined', reason: defect });
      const next = await api('POST', `${ws}/agent-messages`, envelope());
      expect(next.body.disposition).toBe('observed');
    }
    expect((await raw('{"schema": "agent-message/v1",')).body).toMatchObject({ disposition: 'quarantined', reason: 'invalid', messageId: null });
    const quarantine = await api('GET', `${ws}/agent-messages/quarantine`);
    expect(quarantine.status).toBe(200);
    const reasons = new Set(quarantine.body.quarantined.map((q: unknown) => QuarantinedAgentMessageSchema.parse(q).reason));
    expect([...reasons].sort()).toEqual([...DEFECTS].sort());
    expect(JSON.stringify(quarantine.body)).not.toContain(marker);
    const health = await api('GET', `${ws}/agent-messages/health`);
    expect(health.body.totals.quarantined).toBeGreaterThanOrEqual(DEFECTS.length + 1);
    expect(JSON.stringify(health.body)).not.toContain(marker);
  });

  it('records sender sequence gaps and regressions as metadata, never refusing them', async () => {
    const seqs = [1, 2, 5, 3];
    const sequences: string[] = [];
    // A workspace of its own: the member's other notes would be this sender's previous ones.
    const api2 = apiClient(platform.gatewayUrl, await platform.createWorkspace('seqs'));
    const base = '/v1/workspaces/seqs';
    for (const senderSeq of seqs) {
      const posted = await api2('POST', `${base}/agent-messages`, envelope({ senderSeq }));
      expect(posted.body.disposition).toBe('observed');
    }
    const page = await api2('GET', `${base}/agent-messages?since=0`);
    for (const o of page.body.observations) sequences.push(`${o.senderSeq}:${o.sequence}:${o.previousSenderSeq}`);
    expect(sequences).toEqual(['1:first:null', '2:next:1', '5:gap:2', '3:regression:5']);
  });

  it('post_peer_note: a run posts as its agent and run, the platform fills ids, times and the next senderSeq; an agent cannot read content', async () => {
    const pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    const sql = new SqlPool({ databaseUrl: platform.db.url, poolMax: 1 });
    try {
      const workspaceId = (await pg.query(`SELECT id::text FROM workspaces WHERE slug = 'notes'`)).rows[0].id as string;
      const agentId = (await api('POST', `${ws}/agents`, scriptedAgent('noter'))).body.id as string;
      const runId = newId();
      const eventId = randomUUID();
      await pg.query(
        `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, event_id, event_kind, status, session_id, started_at)
         VALUES ($1, $2, $3, 1, 'trigger', $4, $5, 'build.failed', 'running', $6, now())`,
        [runId, workspaceId, agentId, JSON.stringify({ type: 'trigger', eventId, agentVersion: 1, triggerIndex: 0 }), eventId, randomUUID()],
      );
      const { token } = await new SqlAgentTokens(sql).mint({ workspaceId, runId, agentId, depth: 0, ttlMs: 60_000 });
      const mcp = await connectMcp(platform.gatewayUrl, token);
      const first = await callTool(mcp, 'post_peer_note', { thread: 'build-42', topic: 'cause', content: 'Redis restarts cause it.' });
      const second = await callTool(mcp, 'post_peer_note', { thread: 'build-42', topic: 'cause', content: 'Confirmed.', expiresInMs: 60_000 });
      await mcp.close();
      expect(first.isError).toBe(false);
      expect(second.body).toMatchObject({ disposition: 'observed' });
      const page = await api('GET', `${ws}/agent-messages?since=${first.body.seq - 1}`);
      const mine = page.body.observations.filter((o: { sender: { type: string } }) => o.sender.type === 'agent');
      expect(mine.map((o: { senderSeq: number; sequence: string }) => [o.senderSeq, o.sequence])).toEqual([
        [1, 'first'],
        [2, 'next'],
      ]);
      expect(mine[0].sender).toEqual({ type: 'agent', id: agentId, runId });
      const agentApi = apiClient(platform.gatewayUrl, token);
      expect((await agentApi('GET', `${ws}/agent-messages/${first.body.messageId}/content`)).status).toBe(403);
      // Over HTTP too, the run is the sender; a credential-shaped secret is quarantined, not stored.
      const secret = await agentApi('POST', `${ws}/agent-messages`, envelope({ content: `token ghp_${'a'.repeat(36)}` }));
      expect(secret.body).toMatchObject({ disposition: 'quarantined', reason: 'secret_detected' });
    } finally {
      await sql.$disconnect();
      await pg.end();
    }
  });

  it('validates its queries and paths with stable codes', async () => {
    expect((await api('GET', `${ws}/agent-messages?since=-1`)).status).toBe(400);
    expect((await api('GET', `${ws}/agent-messages?bogus=1`)).status).toBe(400);
    expect((await api('GET', `${ws}/agent-messages/${'nope'}/content`)).status).toBe(400);
    expect((await api('GET', `${ws}/agent-messages/unknown-message-id/content`)).body.error.code).toBe('AGENT_MESSAGE_NOT_FOUND');
    expect((await api('POST', `${ws}/agent-messages`, 'x', { 'content-type': 'text/plain' })).status).toBe(415);
  });
});
