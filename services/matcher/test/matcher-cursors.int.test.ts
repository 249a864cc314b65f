import type { Client } from 'pg';
import type { Fact } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { createActivationQueue, type ActivationQueue, type Redis, duplicateRedis } from '@switchyard/redis';
import { createTestRedis, createTestSql, waitFor, type TestRedis, type TestSql } from '@switchyard/testing';
import { insertScriptedAgent, sqlMatcher } from './sql-fixtures';

/**
 * When the matcher saves its cursors (decision 0010): at once after a batch
 * that decided something or changed the index; after a short linger, or with
 * the next such batch, when its facts matched nothing (the platform's own
 * agent.run.* facts, mostly) — on the real PostgreSQL store, BullMQ queue and
 * ingest stream.
 */
describe('matcher cursor saves', () => {
  let t: TestSql;
  let redis: TestRedis;
  let pg: Client;
  let queueConnection: Redis;
  let queue: ActivationQueue;
  const workspaceId = newId();
  const agentId = newId();

  beforeAll(async () => {
    t = await createTestSql();
    redis = await createTestRedis();
    pg = t.pg;
    queueConnection = duplicateRedis(redis.redis, { maxRetriesPerRequest: null });
    queue = createActivationQueue(queueConnection, redis.prefix);
    await pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, 'cursors')`, [workspaceId]);
    await insertScriptedAgent(pg, workspaceId, agentId, [{ kind: 'hit.*' }]);
  });

  afterAll(async () => {
    await queue?.close();
    queueConnection?.disconnect();
    await redis?.cleanup();
    await t?.close();
  });

  const matcher = (cursorLingerMs: number) => sqlMatcher({ sql: t.sql, queue, consumer: `c${cursorLingerMs}`, cursorLingerMs });
  let seq = 0;
  const fact = (kind: string): { fact: Fact; workspaceId: string } => ({
    workspaceId,
    fact: { id: newId(), seq: ++seq, workspace: 'cursors', kind, subject: { type: 't', id: String(seq) }, payload: {}, ts: new Date().toISOString() },
  });
  const saved = async (consumer: string) =>
    Number((await pg.query(`SELECT last_seq FROM consumer_cursors WHERE consumer = $1 AND workspace_id = $2`, [consumer, workspaceId])).rows[0]?.last_seq ?? 0);

  it('a batch whose matches all have runs waits like one that matched nothing; a skip saves at once; stop saves the rest', async () => {
    const m = await matcher(60_000);
    await m.handle([fact('miss.one')]);
    expect(await saved('c60000')).toBe(0);
    const hit = fact('hit.one');
    await m.handle([hit]);
    // Its run is recorded (a repeat would find it), so its cursor may wait.
    expect((await pg.query(`SELECT count(*)::int AS n FROM runs WHERE event_id = $1`, [hit.fact.id])).rows[0].n).toBe(1);
    expect(await saved('c60000')).toBe(0);
    // A fact the agent caused itself is skipped (self-cause): recorded nowhere but in the cursor.
    const self = fact('hit.self');
    self.fact.causedBy = { runId: newId(), agentId, depth: 1 };
    await m.handle([self]);
    expect(await saved('c60000')).toBe(self.fact.seq);
    expect((await pg.query(`SELECT count(*)::int AS n FROM runs WHERE event_id = $1`, [self.fact.id])).rows[0].n).toBe(0);
    const last = fact('miss.two');
    await m.handle([last]);
    expect(await saved('c60000')).toBe(self.fact.seq);
    await m.saveUnsaved();
    expect(await saved('c60000')).toBe(last.fact.seq);
  });

  it('an unsaved cursor is saved once the linger runs out', async () => {
    const m = await matcher(50);
    const miss = fact('miss.four');
    await m.handle([miss]);
    await waitFor(async () => (await saved('c50')) === miss.fact.seq, { timeoutMs: 5000, intervalMs: 10, what: 'the lingering cursor saved' });
  });
});
