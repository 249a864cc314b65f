import type { Fact } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import type { SqlRunner } from '@switchyard/db';
import { createLogger } from '@switchyard/logging';
import { createActivationQueue, SessionMailbox, duplicateRedis } from '@switchyard/redis';
import { createTestRedis, createTestSql, type TestRedis, type TestSql } from '@switchyard/testing';
import { DelegationReturns } from '../src/delegation-returns';
import { sqlMatcher } from './sql-fixtures';

/**
 * The delegation returns read every ending on `facts`, in the matcher's batches: a delegated
 * run's result goes to its parent's mailbox, and any other run's ending is
 * passed over by its fact alone (the origin's type in its payload), with no
 * read of the run. A fact recorded before the payload named the origin is
 * looked up.
 */
const log = createLogger({ service: 'test', level: 'silent' });

describe('DelegationReturns', () => {
  let t: TestSql;
  let r: TestRedis;
  let statements: string[];
  let counting: SqlRunner;
  let ws: { id: string; slug: string };
  let agentId: string;

  beforeAll(async () => {
    t = await createTestSql();
    r = await createTestRedis();
    // The real runner, every statement noted.
    counting = new Proxy(t.sql, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== 'function' || !String(name).startsWith('$')) return value;
        return (sql: string, ...params: unknown[]) => {
          statements.push(sql);
          return (value as (...args: unknown[]) => unknown).call(target, sql, ...params);
        };
      },
    });
    ws = { id: newId(), slug: `d${newId().slice(-8)}` };
    agentId = newId();
    await t.pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, $2)`, [ws.id, ws.slug]);
    await t.pg.query(`INSERT INTO workspace_event_seq (workspace_id) VALUES ($1)`, [ws.id]);
    await t.pg.query(`INSERT INTO agents (id, workspace_id, name, latest_version, enabled, created_by, updated_at) VALUES ($1, $2, 'a', 1, true, $3, now())`, [agentId, ws.id, newId()]);
  });
  beforeEach(() => {
    statements = [];
  });
  afterAll(async () => {
    await r?.cleanup();
    await t?.close();
  });

  async function insertRun(originType: string, origin: object, status = 'completed'): Promise<{ id: string; sessionId: string }> {
    const run = { id: newId(), sessionId: newId() };
    await t.pg.query(
      `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id, depth, outcome)
       VALUES ($1, $2, $3, 1, $4, $5, $6::"RunStatus", $7, 1, '{"summary": "done"}')`,
      [run.id, ws.id, agentId, originType, JSON.stringify(origin), status, run.sessionId],
    );
    return run;
  }

  /** The ending fact of a run, as the runs trigger writes it (`origin` absent: a fact recorded before the field). */
  function endingOf(runId: string, origin?: string): Fact {
    return {
      id: newId(),
      workspace: ws.slug,
      seq: 1,
      kind: 'agent.run.completed',
      subject: { type: 'run', id: runId },
      payload: { agentId, agentVersion: 1, status: 'completed', reason: null, ...(origin ? { origin } : {}) },
      ts: new Date().toISOString(),
    };
  }

  const returns = () => new DelegationReturns({ sql: counting, mailbox: new SessionMailbox(r.redis, r.prefix), log });

  it("passes over another run's ending by its fact, reading nothing", async () => {
    const run = await insertRun('manual', { type: 'manual', input: 'x', userId: newId() });
    await returns().handle([endingOf(run.id, 'manual'), endingOf(run.id, 'trigger'), endingOf(run.id, 'teammate')]);
    expect(statements).toEqual([]);
  });

  it('looks up an ending whose fact does not name the origin, and returns nothing for a run that was not delegated', async () => {
    const run = await insertRun('manual', { type: 'manual', input: 'x', userId: newId() });
    await returns().handle([endingOf(run.id)]);
    expect(statements).toHaveLength(1);
    expect((await t.pg.query(`SELECT count(*)::int AS n FROM fact_outbox WHERE kind = 'agent.delegation.returned'`)).rows[0].n).toBe(0);
  });

  it("returns a delegated run's result to its parent's mailbox and records it", async () => {
    const parent = await insertRun('manual', { type: 'manual', input: 'x', userId: newId() }, 'running');
    const child = await insertRun('delegation', { type: 'delegation', parentRunId: parent.id, parentAgentId: agentId, objective: 'o', userId: newId() });
    const mailbox = new SessionMailbox(r.redis, r.prefix);
    await returns().handle([endingOf(child.id, 'delegation')]);
    const { envelopes } = await mailbox.read(parent.sessionId, undefined);
    expect(envelopes.map((envelope) => JSON.parse(envelope.content))).toEqual([{ delegatedRun: child.id, agentId, status: 'completed', result: 'done' }]);
    const recorded = await t.pg.query(`SELECT payload FROM fact_outbox WHERE kind = 'agent.delegation.returned' AND subject_id = $1`, [parent.id]);
    expect(recorded.rows[0].payload).toMatchObject({ childRunId: child.id, status: 'completed', result: 'done', delivery: 'delivered' });
  });

  it("is folded in the matcher's own batches: the result reaches the parent once, however often the batch is handled", async () => {
    const parent = await insertRun('manual', { type: 'manual', input: 'x', userId: newId() }, 'running');
    const child = await insertRun('delegation', { type: 'delegation', parentRunId: parent.id, parentAgentId: agentId, objective: 'o', userId: newId() });
    const connection = duplicateRedis(r.redis, { maxRetriesPerRequest: null });
    const queue = createActivationQueue(connection, r.prefix);
    try {
      const matcher = await sqlMatcher({ sql: t.sql, queue, consumer: `returns-${newId()}`, returns: returns() });
      const batch = [{ fact: { ...endingOf(child.id, 'delegation'), seq: 7 }, workspaceId: ws.id }];
      // A redelivered batch, or a reconcile replaying it from PostgreSQL, goes through the same handle.
      await matcher.handle(batch);
      await matcher.handle(batch);
      await matcher.saveUnsaved();
      const { envelopes } = await new SessionMailbox(r.redis, r.prefix).read(parent.sessionId, undefined);
      expect(envelopes.map((envelope) => JSON.parse(envelope.content).delegatedRun)).toEqual([child.id]);
      const recorded = await t.pg.query(`SELECT count(*)::int AS n FROM fact_outbox WHERE kind = 'agent.delegation.returned' AND subject_id = $1`, [parent.id]);
      expect(recorded.rows[0].n).toBe(1);
    } finally {
      await queue.close();
      connection.disconnect();
    }
  });
});
