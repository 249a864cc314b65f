import { Client } from 'pg';
import { AcceptedFactSchema, RunFactPayloadSchema } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { OutboxRelay, recordFacts, SqlFactStore, type FactPublisher } from '@switchyard/db';
import { createLogger } from '@switchyard/logging';
import { createTestSql, setRunColumns, startTestPlatform, waitFor, type TestPlatform, type TestSql } from '@switchyard/testing';

/**
 * Facts recorded with the change they announce (decision 0024): the runs
 * triggers write a run's `agent.run.<status>` fact in the transaction that
 * changes its status, and the event-log's relay stores outbox rows in the
 * fact log and publishes them. What a crash right after a commit used to lose — the fact of a
 * committed change — is in the outbox, whoever made the change.
 */
jest.setTimeout(120_000);

const log = createLogger({ service: 'test', level: 'silent' });

async function seedWorkspace(pg: Client): Promise<{ workspaceId: string; agentId: string }> {
  const workspaceId = newId();
  const agentId = newId();
  await pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, $2)`, [workspaceId, `w${workspaceId.slice(-8)}`]);
  await pg.query(`INSERT INTO workspace_event_seq (workspace_id) VALUES ($1)`, [workspaceId]);
  await pg.query(
    `INSERT INTO agents (id, workspace_id, name, latest_version, enabled, created_by, updated_at) VALUES ($1, $2, 'a', 1, true, $3, now())`,
    [agentId, workspaceId, newId()],
  );
  return { workspaceId, agentId };
}

async function insertRun(pg: Client, ids: { workspaceId: string; agentId: string }, status = 'queued'): Promise<string> {
  const id = newId();
  await pg.query(
    `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id, depth)
     VALUES ($1, $2, $3, 1, 'manual', '{}', $4::"RunStatus", $5, 2)`,
    [id, ids.workspaceId, ids.agentId, status, newId()],
  );
  return id;
}

describe('the runs triggers', () => {
  let t: TestSql;
  beforeAll(async () => {
    t = await createTestSql();
  });
  afterAll(async () => t?.close());

  it('write one fact per status a run enters, shaped by the contract, and none for an update that keeps it', async () => {
    const ids = await seedWorkspace(t.pg);
    const runId = await insertRun(t.pg, ids);
    await setRunColumns(t.pg, runId, { status: 'running', started_at: new Date() });
    await setRunColumns(t.pg, runId, { stop_requested: true });
    await setRunColumns(t.pg, runId, { status: 'running' });
    await setRunColumns(t.pg, runId, { status: 'failed', reason: 'runner_lost', ended_at: new Date() });
    const rows = (
      await t.pg.query(
        `SELECT o.id::text, o.workspace_id::text AS "workspaceId", w.slug AS workspace, o.kind, o.subject_type, o.subject_id, o.actor, o.payload,
                o.caused_by AS "causedBy", o.idempotency_key AS "idempotencyKey", o.ts, o.correlation_id
           FROM fact_outbox o JOIN workspaces w ON w.id = o.workspace_id WHERE o.subject_id = $1 ORDER BY o.position`,
        [runId],
      )
    ).rows;
    expect(rows.map((row) => row.kind)).toEqual(['agent.run.queued', 'agent.run.started', 'agent.run.failed']);
    for (const { subject_type: type, subject_id: subjectId, correlation_id: correlationId, ts, ...row } of rows) {
      const fact = AcceptedFactSchema.parse({ ...row, subject: { type, id: subjectId }, ts: ts.toISOString() });
      const payload = RunFactPayloadSchema.parse(fact.payload);
      expect(payload).toMatchObject({ agentId: ids.agentId, agentVersion: 1, origin: 'manual' });
      expect(fact.causedBy).toEqual({ runId, agentId: ids.agentId, depth: 3 });
      expect(fact.actor).toEqual({ type: 'system', id: 'switchyard' });
      expect(correlationId).toBe(runId);
    }
    expect(rows.map((row) => row.idempotencyKey)).toEqual([`run:${runId}:queued`, `run:${runId}:running`, `run:${runId}:failed`]);
    expect(RunFactPayloadSchema.parse(rows[2]!.payload).reason).toBe('runner_lost');
    // UUIDv7 ids, in time order like the services' own.
    expect(rows.every((row) => row.id[14] === '7')).toBe(true);
  });

  it('write nothing when the transaction that changed the status rolls back', async () => {
    const ids = await seedWorkspace(t.pg);
    const runId = await insertRun(t.pg, ids);
    await t.pg.query('BEGIN');
    await setRunColumns(t.pg, runId, { status: 'cancelled' });
    await t.pg.query('ROLLBACK');
    const { rows } = await t.pg.query(`SELECT kind FROM fact_outbox WHERE subject_id = $1`, [runId]);
    expect(rows.map((row) => row.kind)).toEqual(['agent.run.queued']);
  });
});

describe('OutboxRelay', () => {
  let t: TestSql;
  const relays: OutboxRelay[] = [];
  beforeAll(async () => {
    t = await createTestSql();
  });
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((relay) => relay.close()));
  });
  afterAll(async () => t?.close());

  /** A publisher that keeps what it got, in order (the facts are stored for real, in the test database). */
  const collecting = () => {
    const got: string[] = [];
    const publisher: FactPublisher = {
      publish: async (facts) => void got.push(...facts.map(({ fact }) => fact.kind + ' ' + fact.subject.id)),
    };
    return { got, publisher };
  };
  const relay = (publisher: FactPublisher, pollMs = 100) => {
    const made = new OutboxRelay({ sql: t.sql, databaseUrl: t.db.url, publisher, log, pollMs });
    relays.push(made);
    return made;
  };

  it('moves the facts in the order their changes were made, woken by the commit, and empties the outbox', async () => {
    await t.pg.query('DELETE FROM fact_outbox');
    const { got, publisher } = collecting();
    // A slow poll: what arrives comes by notification.
    const made = relay(publisher, 60_000);
    await made.start();
    const ids = await seedWorkspace(t.pg);
    const runs: string[] = [];
    for (let i = 0; i < 20; i++) runs.push(await insertRun(t.pg, ids));
    for (const run of runs) await setRunColumns(t.pg, run, { status: 'running' });
    await waitFor(async () => got.length === 40, { what: '40 facts relayed' });
    expect(got).toEqual([...runs.map((run) => `agent.run.queued ${run}`), ...runs.map((run) => `agent.run.started ${run}`)]);
    // The last round's rows are deleted by the next round (here asked for, not the slow poll's).
    await made.drain();
    expect((await t.pg.query('SELECT count(*)::int AS n FROM fact_outbox')).rows[0].n).toBe(0);
  });

  it('while commits keep coming, stores a round and deletes what the last one relayed in one statement, and the poll tidies up once they stop', async () => {
    await t.pg.query('DELETE FROM fact_outbox');
    const { got, publisher } = collecting();
    let statements = 0;
    let rounds = 0;
    const counted = {
      $queryRawUnsafe: <T,>(query: string, ...values: unknown[]) => ((statements += 1), t.sql.$queryRawUnsafe<T>(query, ...values)),
      $executeRawUnsafe: (query: string, ...values: unknown[]) => ((statements += 1), t.sql.$executeRawUnsafe(query, ...values)),
    };
    // The poll (3 s) comes after the commits stop: the last round's rows wait for it, not for a wake-up of their own.
    const made = new OutboxRelay({ sql: counted, databaseUrl: t.db.url, publisher: { publish: (facts) => ((rounds += 1), publisher.publish(facts)) }, log, pollMs: 3_000 });
    relays.push(made);
    await made.start();
    const ids = await seedWorkspace(t.pg);
    await waitFor(async () => !made.isLeader || statements > 0, { what: 'the first drain' });
    const before = statements;
    // A commit, its fact relayed, the next commit: each round's rows are deleted by the next round's statement.
    const loopStarted = Date.now();
    for (let i = 0; i < 30; i++) {
      await insertRun(t.pg, ids);
      await waitFor(async () => got.length > i, { intervalMs: 5, what: `fact ${i + 1} relayed` });
    }
    await waitFor(async () => got.length === 30, { what: '30 facts relayed' });
    const polls = Math.ceil((Date.now() - loopStarted) / 3_000);
    const relayed = statements;
    await waitFor(async () => (await t.pg.query('SELECT count(*)::int AS n FROM fact_outbox')).rows[0].n === 0, { what: 'outbox empty at the poll after the commits stopped' });
    // One statement a round (read, store and delete), and one a poll (the last one deletes the last rows):
    // the relay took two a round before it stored in its own statement, three before it deleted in it.
    expect(rounds).toBeGreaterThan(5);
    expect(relayed - before).toBeLessThanOrEqual(rounds + polls + 1);
    expect(statements - relayed).toBeLessThanOrEqual(2);
    const seqs = (await t.pg.query(`SELECT seq::int FROM platform_events WHERE workspace_id = $1 ORDER BY seq`, [ids.workspaceId])).rows.map((row) => row.seq as number);
    expect(seqs).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('keeps the rows while publishing fails, stored once, and publishes them once it works', async () => {
    await t.pg.query('DELETE FROM fact_outbox');
    const got: string[] = [];
    let refuse = true;
    let refused = 0;
    const made = relay({
      publish: async (facts) => {
        if (refuse) throw ((refused += 1), new Error('Redis is down'));
        got.push(...facts.map(({ fact }) => `${fact.id} ${fact.seq}`));
      },
    });
    await made.start();
    const ids = await seedWorkspace(t.pg);
    const runId = await insertRun(t.pg, ids);
    // Refused twice: the relay has been back for the rows after a failure, and kept them.
    await waitFor(async () => refused >= 2, { what: 'two refused rounds' });
    expect((await t.pg.query('SELECT count(*)::int AS n FROM fact_outbox')).rows[0].n).toBe(1);
    refuse = false;
    await waitFor(async () => got.length === 1, { what: 'the fact relayed after the publisher recovered' });
    const stored = (await t.pg.query(`SELECT id::text, seq::int FROM platform_events WHERE subject_id = $1`, [runId])).rows;
    expect(stored).toHaveLength(1);
    expect(got).toEqual([`${stored[0].id} 1`]);
  });

  it('resolves a round fact by fact when the idempotency key of a row is held by another fact: the others are stored and published, the duplicate settled unpublished', async () => {
    await t.pg.query('DELETE FROM fact_outbox');
    const { got, publisher } = collecting();
    const ids = await seedWorkspace(t.pg);
    const slug = (await t.pg.query('SELECT slug FROM workspaces WHERE id = $1', [ids.workspaceId])).rows[0].slug as string;
    const fact = (kind: string, idempotencyKey?: string) =>
      AcceptedFactSchema.parse({ id: newId(), workspace: slug, workspaceId: ids.workspaceId, kind, subject: { type: 'deploy', id: 'd1' }, payload: {}, ts: new Date().toISOString(), ...(idempotencyKey ? { idempotencyKey } : {}) });
    // The key is stored already, by another fact (the gateway's, say).
    const original = fact('deploy.finished', 'k1');
    await new SqlFactStore(t.sql).append([original]);
    const [before, repeat, after] = [fact('deploy.started'), fact('deploy.finished', 'k1'), fact('deploy.checked')];
    // The three facts recorded in one transaction (one statement).
    await recordFacts(t.sql, [before!, repeat!, after!].map((f) => ({ fact: f, correlationId: 'c' })));
    await relay(publisher).start();
    await waitFor(async () => got.length === 2, { what: 'the two other facts published' });
    expect(got).toEqual(['deploy.started d1', 'deploy.checked d1']);
    const stored = (await t.pg.query(`SELECT id::text, seq::int FROM platform_events WHERE workspace_id = $1 ORDER BY seq`, [ids.workspaceId])).rows;
    expect(stored).toEqual([
      { id: original.id, seq: 1 },
      { id: before!.id, seq: 2 },
      { id: after!.id, seq: 3 },
    ]);
    await waitFor(async () => (await t.pg.query('SELECT count(*)::int AS n FROM fact_outbox')).rows[0].n === 0, { what: 'outbox empty' });
  });

  it('stores the facts in the fact log and publishes them; a publish that fails leaves the rows, and the next round publishes them once stored', async () => {
    await t.pg.query('DELETE FROM fact_outbox');
    const published: string[] = [];
    let failPublish = true;
    const publisher: FactPublisher = {
      publish: async (facts) => {
        if (failPublish) {
          failPublish = false;
          throw new Error('Redis went away after the commit');
        }
        published.push(...facts.map(({ fact }) => `${fact.kind} ${fact.seq}`));
      },
    };
    await relay(publisher).start();
    const ids = await seedWorkspace(t.pg);
    const runId = await insertRun(t.pg, ids);
    await setRunColumns(t.pg, runId, { status: 'running', started_at: new Date() });
    await waitFor(async () => published.length === 2, { what: 'both facts published after the failed round' });
    const rows = (await t.pg.query(`SELECT kind, seq::int FROM platform_events WHERE subject_id = $1 ORDER BY seq`, [runId])).rows;
    // Stored once each, in the order of their changes, numbered densely; published with their seqs.
    expect(rows).toEqual([
      { kind: 'agent.run.queued', seq: 1 },
      { kind: 'agent.run.started', seq: 2 },
    ]);
    expect(published).toEqual(['agent.run.queued 1', 'agent.run.started 2']);
    await waitFor(async () => (await t.pg.query('SELECT count(*)::int AS n FROM fact_outbox')).rows[0].n === 0, { what: 'outbox empty' });
  });

  it('one relay leads at a time; when its connection goes, a standby takes over', async () => {
    const first = relay(collecting().publisher);
    const second = relay(collecting().publisher);
    await first.start();
    await second.start();
    expect([first.isLeader, second.isLeader].sort()).toEqual([false, true]);
    const leader = first.isLeader ? first : second;
    const standby = first.isLeader ? second : first;
    await t.pg.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'outbox-relay' AND datname = current_database() AND pid IN (
      SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)`);
    await waitFor(async () => standby.isLeader || leader.isLeader, { what: 'a relay leading again' });
    await leader.close();
    await waitFor(async () => standby.isLeader, { what: 'the standby leading' });
  });
});

describe('a change committed just before its writer dies (real processes)', () => {
  let platform: TestPlatform | undefined;
  afterEach(async () => {
    await platform?.stop();
    platform = undefined;
  });

  it('has its fact on `facts` exactly once, even with the event-log SIGKILLed mid-relay', async () => {
    platform = await startTestPlatform();
    await platform.createWorkspace('outbox');
    const pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    try {
      const [eventLog] = platform.eventLogs;
      await eventLog!.stop('SIGKILL');
      // The changes commit while no relay runs: as if every writer died right after its commit.
      const workspaceId = (await pg.query(`SELECT id::text FROM workspaces WHERE slug = 'outbox'`)).rows[0].id as string;
      const agentId = newId();
      await pg.query(
        `INSERT INTO agents (id, workspace_id, name, latest_version, enabled, created_by, updated_at) VALUES ($1, $2, 'a', 1, true, $3, now())`,
        [agentId, workspaceId, newId()],
      );
      const runs: string[] = [];
      for (let i = 0; i < 300; i++) runs.push(await insertRun(pg, { workspaceId, agentId }));
      await setRunColumns(pg, { agentId }, { status: 'running' });
      await setRunColumns(pg, { agentId }, { status: 'completed' });
      // An event-log that starts relaying and is killed at once, then one that finishes.
      const doomed = await platform.startEventLog();
      // Killed once it has begun relaying (a first fact stored), before it can finish.
      await waitFor(async () => Number((await pg.query(`SELECT count(*) AS n FROM platform_events WHERE kind LIKE 'agent.run.%'`)).rows[0].n) > 0, {
        intervalMs: 5,
        what: 'the first run fact stored',
      });
      await doomed.stop('SIGKILL');
      await platform.startEventLog();
      const expected = runs.length * 3;
      await waitFor(
        async () => Number((await pg.query(`SELECT count(*) AS n FROM platform_events WHERE kind LIKE 'agent.run.%'`)).rows[0].n) >= expected,
        { what: `${expected} run facts stored`, timeoutMs: 60_000 },
      );
      const stored = await pg.query(`SELECT idempotency_key, count(*)::int AS n FROM platform_events WHERE kind LIKE 'agent.run.%' GROUP BY idempotency_key`);
      expect(stored.rows).toHaveLength(expected);
      expect(stored.rows.every((row) => row.n === 1)).toBe(true);
      await waitFor(async () => (await pg.query('SELECT count(*)::int AS n FROM fact_outbox')).rows[0].n === 0, { what: 'outbox empty' });
      // And on `facts`: every stored run fact's id is published (what the killed event-log stored
      // and had not published yet is still in the outbox: the next relay publishes it again).
      const ids = (await pg.query(`SELECT id::text FROM platform_events WHERE kind LIKE 'agent.run.%'`)).rows.map((row) => row.id as string);
      const unpublished = async () => {
        const published = new Set<string>();
        for (const [, fields] of await platform!.redis.redis.xrange(`${platform!.redis.prefix}:facts`, '-', '+')) published.add(JSON.parse(fields[1]!).fact.id);
        return ids.filter((id) => !published.has(id));
      };
      await waitFor(async () => (await unpublished()).length === 0, { what: 'every stored run fact published', timeoutMs: 30_000 }).catch(() => undefined);
      expect(await unpublished()).toEqual([]);
    } finally {
      await pg.end();
    }
  });
});
