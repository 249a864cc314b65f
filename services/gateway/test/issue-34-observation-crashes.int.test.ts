import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { newId } from '@switchyard/core';
import { SqlPool } from '@switchyard/db';
import { apiClient, freePort, spawnService, startTestPlatform, waitFor, type ServiceProcess, type TestPlatform } from '@switchyard/testing';
import { SqlAgentTokens } from '../../runner/src/adapters/sql-agent-tokens';
import { DEFECTS } from './agent-messages/envelopes';
import { outputsOf, planPosts, postUntilAnswered, type PlannedPost } from './agent-messages/producers';
import { scriptedAgent } from './run-rows';

/** Producers posting at once. */
const PRODUCERS = 20;
/**
 * Posts in all. The figure is 10,000 (`AGENT_MESSAGE_CHAOS_POSTS=10000`, about a
 * minute more here); the default suite runs 2,000 so that it stays bounded on a shared machine.
 */
const POSTS = Number(process.env.AGENT_MESSAGE_CHAOS_POSTS ?? 2_000);
/** SIGKILLs of the gateway (the process that stores observations) while the posts run. */
const KILLS = 5;

/**
 * Issue 34 §4 with real processes: 20 producers (each a run with its own
 * agent token) post valid envelopes and 1 % defects of every kind, while the
 * gateway — the process that screens and stores observations — is SIGKILLed
 * five times and started again on the same port. Producers retry the same
 * bytes until answered. Afterwards: every valid message observed exactly once
 * (on the read API, seqs dense), every defect quarantined once with its reason,
 * gaps and regressions recorded as metadata, and the marker planted in every
 * content absent from facts, logs, observations and quarantine.
 */
describe('issue 34: observations survive SIGKILLs of the process that stores them', () => {
  const ws = '/v1/workspaces/chaos';
  let platform: TestPlatform;
  let port: number;
  const gateways: ServiceProcess[] = [];
  let pg: Client;

  beforeAll(async () => {
    port = await freePort();
    platform = await startTestPlatform({ env: { PORT: String(port) } });
    gateways.push(platform.gateway);
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
  }, 120_000);
  afterAll(async () => {
    await pg?.end();
    await Promise.all(gateways.slice(1).map((proc) => proc.stop('SIGTERM')));
    await platform?.stop();
  });

  /** A run of a fresh agent per producer, and its agent token: each producer is its own sender. */
  async function producerTokens(token: string): Promise<string[]> {
    const api = apiClient(platform.gatewayUrl, token);
    const workspaceId = (await pg.query(`SELECT id::text FROM workspaces WHERE slug = 'chaos'`)).rows[0].id as string;
    const agentId = (await api('POST', `${ws}/agents`, scriptedAgent('producer'))).body.id as string;
    const sql = new SqlPool({ databaseUrl: platform.db.url, poolMax: 1 });
    try {
      const tokens = new SqlAgentTokens(sql);
      const minted: string[] = [];
      // One at a time: one pg client runs one query at a time.
      for (let p = 0; p < PRODUCERS; p++) {
        const runId = newId();
        const eventId = randomUUID();
        await pg.query(
          `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, event_id, event_kind, status, session_id, started_at)
           VALUES ($1, $2, $3, 1, 'trigger', $4, $5, 'build.failed', 'running', $6, now())`,
          [runId, workspaceId, agentId, JSON.stringify({ type: 'trigger', eventId, agentVersion: 1, triggerIndex: 0 }), eventId, randomUUID()],
        );
        minted.push((await tokens.mint({ workspaceId, runId, agentId, depth: 0, ttlMs: 30 * 60_000 })).token);
      }
      return minted;
    } finally {
      await sql.$disconnect();
    }
  }

  it(`${POSTS} posts from ${PRODUCERS} producers, 1 % defective, ${KILLS} SIGKILLs: each valid one observed exactly once, each defect quarantined with its reason`, async () => {
    const admin = await platform.createWorkspace('chaos');
    const tokens = await producerTokens(admin);
    const marker = `MARKER-${randomUUID()}`;
    const plans = tokens.map((_, p) => planPosts(p, Math.ceil(POSTS / PRODUCERS), marker));
    const total = plans.reduce((n, plan) => n + plan.length, 0);
    const url = () => `http://127.0.0.1:${port}${ws}/agent-messages`;
    let answered = 0;

    const produce = async (token: string, plan: PlannedPost[]) => {
      for (const post of plan) {
        const result = await postUntilAnswered(url, token, post.body);
        expect(result.status).toBe(202);
        if (post.defect) expect(result.body).toMatchObject({ disposition: 'quarantined', reason: post.defect });
        else expect(['observed', 'replayed']).toContain(result.body.disposition);
        answered++;
      }
    };
    const chaos = async () => {
      for (let kill = 1; kill <= KILLS; kill++) {
        await waitFor(async () => answered >= (total * kill) / (KILLS + 1), { timeoutMs: 240_000, intervalMs: 10, what: `posts answered before kill ${kill}` });
        await gateways.at(-1)!.stop('SIGKILL');
        gateways.push(await spawnService('gateway', platform.env, { readyPattern: /gateway listening/, timeoutMs: 60_000 }));
      }
    };
    await Promise.all([chaos(), ...tokens.map((token, p) => produce(token, plans[p]!))]);
    expect(gateways.length).toBe(KILLS + 1);

    // Exactly once, on the read API: every valid messageId once, seqs dense from 1.
    const api = apiClient(`http://127.0.0.1:${port}`, admin);
    const seen: { seq: number; messageId: string; sequence: string; contentSha256: string }[] = [];
    for (let since = 0; ; ) {
      const page = await api('GET', `${ws}/agent-messages?since=${since}&limit=500`);
      if (page.body.observations.length === 0) break;
      seen.push(...page.body.observations);
      since = page.body.next;
    }
    const valid = plans.flat().filter((post) => post.messageId);
    expect(seen.map((o) => o.seq)).toEqual(seen.map((_, i) => i + 1));
    expect(new Set(seen.map((o) => o.messageId)).size).toBe(seen.length);
    expect(seen.map((o) => o.messageId).sort()).toEqual(valid.map((post) => post.messageId).sort());
    // Gaps and regressions are metadata on the very observations that carry them.
    const sequenceOf = new Map(seen.map((o) => [o.messageId, o.sequence]));
    for (const post of valid) expect([post.messageId, sequenceOf.get(post.messageId!)]).toEqual([post.messageId, post.sequence]);

    // Every defect quarantined once, with its reason.
    const defects = plans.flat().filter((post) => post.defect);
    const quarantined = await pg.query(`SELECT reason, count(*)::int AS n FROM agent_message_quarantine GROUP BY reason`);
    const expected = Object.fromEntries(DEFECTS.map((reason) => [reason, defects.filter((post) => post.defect === reason).length]));
    expect(Object.fromEntries(quarantined.rows.map((row) => [row.reason, row.n]))).toEqual(Object.fromEntries(Object.entries(expected).filter(([, n]) => n > 0)));

    // No raw content anywhere but the content table: facts, every gateway's log, observations, quarantine.
    const where = {
      facts: (await pg.query(`SELECT count(*)::int AS n FROM platform_events WHERE payload::text LIKE $1`, [`%${marker}%`])).rows[0].n,
      observations: (await pg.query(`SELECT count(*)::int AS n FROM agent_message_observations o WHERE row_to_json(o)::text LIKE $1`, [`%${marker}%`])).rows[0].n,
      quarantine: (await pg.query(`SELECT count(*)::int AS n FROM agent_message_quarantine q WHERE row_to_json(q)::text LIKE $1`, [`%${marker}%`])).rows[0].n,
      logs: outputsOf([...gateways, ...platform.eventLogs]).includes(marker) ? 1 : 0,
    };
    expect(where).toEqual({ facts: 0, observations: 0, quarantine: 0, logs: 0 });
    // The content is kept, apart: what a member may ask for explicitly.
    expect((await pg.query(`SELECT count(*)::int AS n FROM agent_message_contents WHERE content LIKE $1`, [`%${marker}%`])).rows[0].n).toBe(valid.length);
  }, 600_000);
});
