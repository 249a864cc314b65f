import { Client } from 'pg';
import { Queue } from 'bullmq';
import { TriggerSchema, type Fact } from '@switchyard/contracts';
import { compileFilter, matchesKindGlob } from '@switchyard/core';
import { createRedis, closeRedis } from '@switchyard/redis';
import { apiClient, deleteKeys, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { pick, prng } from './agent-fixtures';

/**
 * The matcher end to end over real processes (gateway, event-log, matcher),
 * PostgreSQL and Redis: every matching (agent, fact) pair becomes exactly one
 * run, loop guards hold, and a Redis that lost everything is reconciled from
 * PostgreSQL. No runner runs here: runs stay `queued` with their jobs.
 */
jest.setTimeout(240_000);

const FIRST = ['scorecard', 'build', 'deploy', 'ticket'];
const LAST = ['completed', 'failed', 'opened', 'closed'];

/** Globs from shapes that can never match the platform's own `agent.*` kinds. */
function randomTrigger(rand: () => number): unknown {
  const first = pick(rand, FIRST);
  const last = pick(rand, LAST);
  const kind = pick(rand, [`${first}.${last}`, `${first}.*`, `*.${last}`, `${first}.**`, `**.${last}`]);
  const n = Math.floor(rand() * 10);
  // Selective on purpose (about 2,500 matching pairs): each match costs a run and a fact of its own.
  const filter = pick(rand, [
    { path: 'payload.score', op: 'lt', value: 25 },
    { path: 'payload.bucket', op: 'eq', value: n },
    { path: 'payload.bucket', op: 'in', value: [n, (n + 3) % 10] },
    { all: [{ path: 'payload.score', op: 'gte', value: Math.floor(rand() * 100) }, { path: 'subject.id', op: 'startsWith', value: 'x' }] },
    { not: { path: 'payload.bucket', op: 'lt', value: 8 } },
  ]);
  return { kind, filter: { all: [filter, { path: 'payload.score', op: 'lt', value: 40 }] } };
}

const spec = (name: string, triggers: unknown[], flow: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  name,
  instructions: 'Act on the fact.',
  model: { provider: 'openai', name: 'gpt-4.1-mini' },
  triggers,
  flow: { queueCap: 10_000, ...flow },
  ...extra,
});

describe('matcher (real processes)', () => {
  let platform: TestPlatform;
  let pg: Client;
  beforeEach(async () => {
    platform = await startTestPlatform({ matcher: true, env: { CLAIM_IDLE_MS: '1000' } });
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
  });
  afterEach(async () => {
    await pg.end();
    await platform.stop();
  });

  const runs = async () =>
    (await pg.query<{ agent_id: string; event_id: string | null; status: string; reason: string | null; depth: number; id: string }>(
      'SELECT id::text, agent_id::text, event_id::text, status::text, reason, depth FROM runs',
    )).rows;
  /** Waits until every fact (the matcher's own included) went through the event-log and the matcher. */
  const settle = () => platform.settled();

  it('50 agents, 5,000 facts: exactly one run per matching (agent, fact) pair, checked by brute force', async () => {
    const token = await platform.createWorkspace('match');
    const api = apiClient(platform.gatewayUrl, token);
    const rand = prng(2026);
    const agents: Array<{ id: string; triggers: unknown[] }> = [];
    for (let i = 0; i < 50; i++) {
      const triggers = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => randomTrigger(rand));
      const created = await api('POST', '/v1/workspaces/match/agents', spec(`agent-${i}`, triggers));
      expect(created.status).toBe(201);
      agents.push({ id: created.body.id, triggers });
    }
    const facts = Array.from({ length: 5000 }, (_, i) => ({
      kind: `${pick(rand, FIRST)}.${pick(rand, LAST)}`,
      subject: { type: 'thing', id: `${pick(rand, ['x', 'y'])}-${i}` },
      payload: { bucket: Math.floor(rand() * 10), score: Math.floor(rand() * 100) },
    }));
    for (let i = 0; i < facts.length; i += 250) {
      expect((await api('POST', '/v1/workspaces/match/events:batch', { events: facts.slice(i, i + 250) })).status).toBe(202);
    }
    await settle();

    const stored: Fact[] = [];
    for (let after = 0; ; ) {
      const page = await api('GET', `/v1/workspaces/match/events?after=${after}&limit=1000`);
      stored.push(...page.body.events);
      if (page.body.events.length === 0) break;
      after = page.body.nextCursor;
    }
    const loadFacts = stored.filter((f) => FIRST.includes(f.kind.split('.')[0]!));
    expect(loadFacts).toHaveLength(5000);
    const expected = new Set<string>();
    for (const agent of agents) {
      const triggers = agent.triggers.map((t) => TriggerSchema.parse(t));
      const filters = triggers.map((t) => (t.filter ? compileFilter(t.filter) : () => true));
      for (const fact of loadFacts) {
        if (triggers.some((t, i) => matchesKindGlob(t.kind, fact.kind) && filters[i]!(fact))) expected.add(`${agent.id}/${fact.id}`);
      }
    }
    const actual = (await runs()).map((r) => `${r.agent_id}/${r.event_id}`);
    expect(actual.length).toBe(new Set(actual).size); // never two runs for one pair
    expect(expected.size).toBeGreaterThan(1000);
    expect(new Set(actual)).toEqual(expected);
    // Every queued run has its job.
    const connection = createRedis(platform.redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue('activations', { connection, prefix: platform.redis.prefix });
    expect((await queue.getJobCounts('waiting', 'prioritized')).waiting).toBe(expected.size);
    await queue.close();
    await closeRedis(connection);
  });

  it('loop guards: no self-wake, the causation chain stops at depth 5, cooldown holds, a full queue records dropped', async () => {
    const token = await platform.createWorkspace('guards');
    const api = apiClient(platform.gatewayUrl, token);
    // A and B wake each other through their run facts: a chain that must stop at the depth cap.
    const a = (await api('POST', '/v1/workspaces/guards/agents', spec('ping', [{ kind: 'chain.start' }]))).body.id;
    const b = (await api('POST', '/v1/workspaces/guards/agents', spec('pong', [{ kind: 'agent.run.queued', filter: { path: 'payload.agentId', op: 'eq', value: a } }]))).body.id;
    expect((await api('PUT', `/v1/workspaces/guards/agents/${a}`, spec('ping', [{ kind: 'chain.start' }, { kind: 'agent.run.queued', filter: { path: 'payload.agentId', op: 'eq', value: b } }]))).status).toBe(200);
    // Self: wakes on every run fact, including its own (which it must not).
    const self = (await api('POST', '/v1/workspaces/guards/agents', spec('self', [{ kind: 'agent.run.queued', filter: { path: 'payload.agentId', op: 'ne', value: a } }]))).body.id;
    const cool = (await api('POST', '/v1/workspaces/guards/agents', spec('cool', [{ kind: 'cool.down' }], { cooldownMs: 600_000 }))).body.id;
    const capped = (await api('POST', '/v1/workspaces/guards/agents', spec('capped', [{ kind: 'cap.fill' }], { queueCap: 2 }))).body.id;
    await settle();

    await api('POST', '/v1/workspaces/guards/events', { kind: 'chain.start', subject: { type: 't', id: '1' } });
    await api('POST', '/v1/workspaces/guards/events:batch', { events: [1, 2, 3].map((i) => ({ kind: 'cool.down', subject: { type: 't', id: String(i) } })) });
    await api('POST', '/v1/workspaces/guards/events:batch', { events: [1, 2, 3, 4].map((i) => ({ kind: 'cap.fill', subject: { type: 't', id: String(i) } })) });
    await settle();

    const all = await runs();
    const of = (agent: string) => all.filter((r) => r.agent_id === agent);
    // ping (depth 0, 2, 4) and pong (1, 3): the fact of the depth-4 run has depth 5 and wakes no one.
    expect(of(a).map((r) => r.depth).sort()).toEqual([0, 2, 4]);
    expect(of(b).map((r) => r.depth).sort()).toEqual([1, 3]);
    // self woke on the chain's run facts and the others' (depth < 5), never on its own.
    const selfRunFacts = await pg.query(`SELECT count(*)::int AS n FROM platform_events WHERE kind = 'agent.run.queued' AND caused_by->>'agentId' = $1`, [self]);
    expect(selfRunFacts.rows[0].n).toBe(of(self).length);
    const selfTriggers = await pg.query(`SELECT e.caused_by->>'agentId' AS by FROM runs r JOIN platform_events e ON e.id = r.event_id WHERE r.agent_id = $1`, [self]);
    expect(selfTriggers.rows.map((row) => row.by)).not.toContain(self);
    expect(of(cool)).toHaveLength(1);
    expect(of(capped).map((r) => `${r.status}:${r.reason ?? ''}`).sort()).toEqual(['dropped:queue_full', 'dropped:queue_full', 'queued:', 'queued:']);
    const dropped = await api('GET', '/v1/workspaces/guards/events?kind=agent.run.dropped');
    expect(dropped.body.events).toHaveLength(2);
  });

  it('disable stops new runs, enable resumes for new facts only; the kill switch likewise', async () => {
    const token = await platform.createWorkspace('toggle');
    const api = apiClient(platform.gatewayUrl, token);
    const id = (await api('POST', '/v1/workspaces/toggle/agents', spec('t', [{ kind: 'tick.tock' }]))).body.id;
    const tick = (n: number) => api('POST', '/v1/workspaces/toggle/events', { kind: 'tick.tock', subject: { type: 't', id: String(n) } });
    await tick(1);
    await settle();
    expect(await api('POST', `/v1/workspaces/toggle/agents/${id}/disable`)).toMatchObject({ status: 200 });
    await tick(2);
    await settle();
    await api('POST', `/v1/workspaces/toggle/agents/${id}/enable`);
    await tick(3);
    await settle();
    const events = (await api('GET', '/v1/workspaces/toggle/events?kind=tick.tock')).body.events;
    const byN = new Map(events.map((e: Fact) => [e.id, e.subject.id]));
    expect((await runs()).map((r) => byN.get(r.event_id!)).sort()).toEqual(['1', '3']);

    // The kill switch: nothing activates while it is on; new facts do once it is off.
    expect((await api('PUT', '/v1/workspaces/toggle/settings', { agentsPaused: true })).status).toBe(200);
    await tick(4);
    await settle();
    expect((await api('PUT', '/v1/workspaces/toggle/settings', { agentsPaused: false })).status).toBe(200);
    await tick(5);
    await settle();
    const later = new Map((await api('GET', '/v1/workspaces/toggle/events?kind=tick.tock')).body.events.map((e: Fact) => [e.id, e.subject.id]));
    expect((await runs()).map((r) => later.get(r.event_id!)).sort()).toEqual(['1', '3', '5']);
  });

  it('reconciles from PostgreSQL after Redis lost everything: unseen facts activate, queued runs get their jobs back, nothing twice', async () => {
    const token = await platform.createWorkspace('flush');
    const api = apiClient(platform.gatewayUrl, token);
    await api('POST', '/v1/workspaces/flush/agents', spec('r', [{ kind: 'job.arrived' }]));
    const post = (from: number, count: number) =>
      api('POST', '/v1/workspaces/flush/events:batch', { events: Array.from({ length: count }, (_, i) => ({ kind: 'job.arrived', subject: { type: 'j', id: String(from + i) } })) });
    await post(0, 20);
    await settle();
    expect(await runs()).toHaveLength(20);

    // The matcher is down while 30 more facts are persisted; then Redis loses everything
    // (every key of this installation's prefix: the test-safe FLUSHDB on a shared Redis).
    await platform.matcher!.stop('SIGKILL');
    await post(20, 30);
    await waitFor(async () => (await pg.query(`SELECT 1 FROM platform_events WHERE kind = 'job.arrived'`)).rowCount === 50, { what: 'facts persisted' });
    await deleteKeys(platform.redis.redis, `${platform.redis.prefix}:*`);

    await platform.startMatcher();
    await settle();
    const after = await runs();
    expect(after).toHaveLength(50);
    expect(new Set(after.map((r) => r.event_id)).size).toBe(50);
    const connection = createRedis(platform.redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue('activations', { connection, prefix: platform.redis.prefix });
    for (const run of after) expect(await queue.getJob(run.id)).toBeTruthy();
    await queue.close();
    await closeRedis(connection);
  });
});
