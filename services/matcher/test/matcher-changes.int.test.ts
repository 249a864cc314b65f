import type { Client } from 'pg';
import type { Fact } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { createLogger } from '@switchyard/logging';
import { createActivationQueue, type ActivationQueue, type Redis, duplicateRedis } from '@switchyard/redis';
import { createTestRedis, createTestSql, type TestRedis, type TestSql } from '@switchyard/testing';
import { SqlMatcherStore } from '../src/adapters/sql-matcher-store';
import { insertScriptedAgent, sqlMatcher } from './sql-fixtures';

/**
 * An agent change applies where it falls in the fact order, whether the
 * batch holds it or not: a batch holding every fact since the last one
 * applies the changes among them (seqs are dense per workspace) and reads
 * none from PostgreSQL; a batch with a gap (a fact another replica took, or
 * one published out of order) reads the changes of the range.
 */
describe('matcher: changes in the fact order', () => {
  let t: TestSql;
  let redis: TestRedis;
  let pg: Client;
  let queueConnection: Redis;
  let queue: ActivationQueue;
  const workspaceId = newId();
  const agentId = newId();
  let seq = 0;
  let reads: number;

  beforeAll(async () => {
    t = await createTestSql();
    redis = await createTestRedis();
    pg = t.pg;
    queueConnection = duplicateRedis(redis.redis, { maxRetriesPerRequest: null });
    queue = createActivationQueue(queueConnection, redis.prefix);
    await pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, 'changes')`, [workspaceId]);
    await pg.query(`INSERT INTO workspace_event_seq (workspace_id) VALUES ($1)`, [workspaceId]);
    await insertScriptedAgent(pg, workspaceId, agentId, [{ kind: 'hit.*' }]);
  });
  afterAll(async () => {
    await queue?.close();
    queueConnection?.disconnect();
    await redis?.cleanup();
    await t?.close();
  });

  const matcher = async () => {
    const store = new SqlMatcherStore(t.sql, createLogger({ service: 'test', level: 'silent' }));
    const changesBetween = store.changesBetween.bind(store);
    store.changesBetween = (ranges) => {
      reads += 1;
      return changesBetween(ranges);
    };
    const created = await sqlMatcher({ sql: t.sql, queue, consumer: `m${newId()}`, store });
    reads = 0;
    return created;
  };

  /** A fact stored in the fact log with the next seq, as the matcher gets it from `facts`. */
  const stored = async (kind: string, subject: { type: string; id: string }, payload: Fact['payload'] = {}): Promise<{ fact: Fact; workspaceId: string }> => {
    const fact: Fact = { id: newId(), seq: ++seq, workspace: 'changes', kind, subject, payload, ts: new Date().toISOString() };
    await pg.query(
      `INSERT INTO platform_events (id, workspace_id, seq, kind, subject_type, subject_id, payload, ts) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8)`,
      [fact.id, workspaceId, fact.seq, kind, subject.type, subject.id, JSON.stringify(payload), fact.ts],
    );
    await pg.query(`UPDATE workspace_event_seq SET last_seq = $2 WHERE workspace_id = $1`, [workspaceId, fact.seq]);
    return { fact, workspaceId };
  };
  const hit = (n: number) => stored('hit.one', { type: 't', id: String(n) });
  const toggled = (enabled: boolean) => stored(enabled ? 'agent.enabled' : 'agent.disabled', { type: 'agent', id: agentId }, { version: 1, enabled });
  const activated = async (facts: ReadonlyArray<{ fact: Fact }>) =>
    (await pg.query(`SELECT event_id::text FROM runs WHERE event_id = ANY($1::uuid[])`, [facts.map(({ fact }) => fact.id)])).rows.map((row) => row.event_id as string);

  it('applies a change the batch holds at its place, reading nothing', async () => {
    const m = await matcher();
    const before = await hit(1);
    const disabled = await toggled(false);
    const after = await hit(2);
    await m.handle([before, disabled, after]);
    expect(await activated([before, after])).toEqual([before.fact.id]);
    const enabled = await toggled(true);
    const again = await hit(3);
    await m.handle([enabled, again]);
    expect(await activated([again])).toEqual([again.fact.id]);
    expect(reads).toBe(0);
  });

  it('reads the changes of a range the batch does not hold every fact of', async () => {
    const m = await matcher();
    // Taken by another replica: the batch holds only the facts around it.
    await toggled(false);
    const missed = await hit(4);
    await m.handle([missed]);
    expect(await activated([missed])).toEqual([]);
    expect(reads).toBe(1);
    await toggled(true);
    const later = await hit(5);
    await m.handle([later]);
    expect(await activated([later])).toEqual([later.fact.id]);
    expect(reads).toBe(2);
  });
});
