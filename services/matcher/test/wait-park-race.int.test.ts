import type { AcceptedFact, Fact } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { flushFacts, FACT_COLUMNS, factFromRow, SqlFactStore, SqlPool, type FactRow } from '@switchyard/db';
import { createLogger } from '@switchyard/logging';
import { SqlWaitBook, SqlWaitParking, type ResumedWait, type RunRef } from '@switchyard/runs';
import { createTestSql, waitFor, type TestSql } from '@switchyard/testing';
import { ActivationGuards } from '../src/activation-guards';
import { AgentIndex } from '../src/agent-index';
import { Matcher, type MatcherFact } from '../src/matcher';
import { SqlMatcherStore } from '../src/adapters/sql-matcher-store';
import { WaitResumer } from '../src/wait-resumer';

/**
 * Decision 0055, "Who resolves": a matcher asks PostgreSQL for a workspace's
 * pending waits only once a park there is announced (its
 * `agent.run.awaiting_event`, which the outbox relays after the park commits).
 * The race: the awaited fact is recorded after the park committed but before
 * its announcement, so the replica that gets the fact does not know the wait.
 * Here runs park while facts flow, the awaited fact is appended right after
 * each park, the outbox is relayed every few ms (the announcement lags the
 * park), and the stored facts go, in seq order, each to one of two matcher
 * replicas at random (the consumer group). No sweep runs: every wait must be
 * resolved by the batches — exactly once.
 */
const TRIALS = 300;
const LANES = 4;
const OWNER = 'race-runner';
const silent = createLogger({ service: 'test', level: 'silent' });

describe('a wait parked while facts flow (real PostgreSQL, two matcher replicas)', () => {
  let t: TestSql;
  let pools: SqlPool[];

  beforeAll(async () => {
    t = await createTestSql();
    pools = [0, 1, 2, 3, 4].map(() => new SqlPool({ databaseUrl: t.db.url, poolMax: LANES }));
  });

  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.$disconnect()));
    await t.close();
  });

  it(`${TRIALS} parks, each followed at once by its fact: every wait resolved once, none left to the sweep`, async () => {
    const [parkPool, factPool, relayPool, matchPool, arrangePool] = pools as [SqlPool, SqlPool, SqlPool, SqlPool, SqlPool];
    const workspaceId = newId();
    const slug = 'park-race';
    await t.pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, $2)`, [workspaceId, slug]);
    await t.pg.query(`INSERT INTO workspace_event_seq (workspace_id) VALUES ($1)`, [workspaceId]);
    const agents = await arrangeAgents(t, workspaceId);
    const facts = new SqlFactStore(factPool);
    const wakes = new Map<string, number>();
    const replicas = await Promise.all([0, 1].map(() => replica(matchPool, wakes)));
    let stop = false;

    // The relay: every few ms, the outbox's rows to the fact log (the park's announcement among them).
    const sink = { record: (items: ReadonlyArray<{ fact: AcceptedFact }>) => facts.append(items.map((item) => item.fact)) };
    const relay = (async () => {
      while (!stop) {
        const rows = await relayPool.$queryRawUnsafe<Array<{ id: string }>>('SELECT id::text AS id FROM fact_outbox ORDER BY position DESC LIMIT 1');
        if (rows.length > 0) await flushFacts(relayPool, sink, silent, [rows[0]!.id]);
        await turns(50);
      }
    })();
    // The stream: stored facts in seq order, each to one replica at random, which handles what it holds in batches.
    let delivered = 0;
    const streamed = (async () => {
      while (!stop) {
        const rows = await matchPool.$queryRawUnsafe<FactRow[]>(
          `SELECT ${FACT_COLUMNS} FROM platform_events WHERE workspace_id = $1::uuid AND seq > $2 ORDER BY seq LIMIT 100`,
          workspaceId,
          delivered,
        );
        for (const row of rows) {
          const fact = factFromRow(row, slug);
          replicas[Math.random() < 0.5 ? 0 : 1]!.inbox.push({ fact, workspaceId });
          delivered = fact.seq;
        }
        await Promise.all(replicas.map((r) => r.drain()));
        await turns(1);
      }
    })();
    // Other facts flowing meanwhile.
    const noise = (async () => {
      while (!stop) {
        await facts.append([acceptedFact(workspaceId, slug, 'noise.tick', newId())]);
        await turns(5);
      }
    })();

    const parking = new SqlWaitParking(parkPool, { owner: OWNER, leaseMs: 60_000 });
    const outcomes: string[] = [];
    await Promise.all(
      agents.map(async (agentId) => {
        for (let i = 0; i < TRIALS / LANES; i++) {
          const run = await runningRun(arrangePool, workspaceId, slug, agentId);
          const token = newId();
          const afterSeq = await parking.currentSeq(workspaceId);
          const filter = { path: 'payload.token', op: 'eq', value: token } as const;
          const parked = await parking.park(run, { toolCallId: 'call-1', kind: 'ci.*', filter, timeoutMs: 600_000, afterSeq }, 0);
          if (parked.type !== 'parked') throw new Error(`park refused: ${parked.type}`);
          await turns(Math.floor(Math.random() * 3));
          const [stored] = await facts.append([acceptedFact(workspaceId, slug, 'ci.finished', token)]);
          if (stored?.status !== 'inserted') throw new Error('fact not stored');
          outcomes.push(run.id);
        }
      }),
    );

    // Every wait resolved by the batches, within a deadline (no sweep runs).
    let pending = -1;
    await waitFor(
      async () => {
        const [row] = await arrangePool.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM run_waits WHERE status = 'pending'`);
        pending = row!.n;
        return pending === 0 || undefined;
      },
      { timeoutMs: 30_000, intervalMs: 20, what: 'every wait resolved' },
    ).catch(() => undefined); // what is left is reported below
    stop = true;
    await Promise.all([relay, streamed, noise]);
    // How often the announcement came after the awaited fact: the case only the stored check resolves.
    const [late] = await arrangePool.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM run_waits w
         JOIN platform_events a ON a.workspace_id = w.workspace_id AND a.kind = 'agent.run.awaiting_event' AND a.subject_id = w.run_id::text
         JOIN platform_events f ON f.workspace_id = w.workspace_id AND f.kind = 'ci.finished' AND f.payload->>'token' = w.filter->>'value'
        WHERE f.seq < a.seq`,
    );
    const announcedLate = late!.n;
    const left = await arrangePool.$queryRawUnsafe<unknown[]>(
      `SELECT w.after_seq, a.seq AS announced, f.seq AS fact, w.created_at, r.status::text
         FROM run_waits w JOIN runs r ON r.id = w.run_id
         LEFT JOIN platform_events a ON a.workspace_id = w.workspace_id AND a.kind = 'agent.run.awaiting_event' AND a.subject_id = w.run_id::text
         LEFT JOIN platform_events f ON f.workspace_id = w.workspace_id AND f.kind = 'ci.finished' AND f.payload->>'token' = w.filter->>'value'
        WHERE w.status = 'pending'`,
    );
    // The waits left, if any, with the seqs that explain them.
    if (left.length > 0) console.info(JSON.stringify(left, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)));
    const [resumes] = await arrangePool.$queryRawUnsafe<Array<{ once: number; matched: number }>>(
      `SELECT count(*) FILTER (WHERE r.resumes = 1)::int AS once, count(*) FILTER (WHERE w.status = 'matched')::int AS matched
         FROM run_waits w JOIN runs r ON r.id = w.run_id`,
    );
    console.info(`wait park race: ${JSON.stringify({ trials: outcomes.length, announcedAfterTheFact: announcedLate, pending, ...resumes })}`);
    expect(pending).toBe(0);
    expect(resumes!.matched).toBe(TRIALS);
    expect(resumes!.once).toBe(TRIALS);
    expect([...wakes.values()].every((count) => count === 1)).toBe(true);
    expect(wakes.size).toBe(TRIALS);
    // The race was really run: some announcements came after their fact.
    expect(announcedLate).toBeGreaterThan(0);
  }, 120_000);
});

/** A matcher replica with its own wait book, handling the facts given to it in batches, one batch at a time. */
async function replica(sql: SqlPool, wakes: Map<string, number>) {
  const waits = new WaitResumer({
    book: new SqlWaitBook(sql),
    wake: async (runs: readonly ResumedWait[]) => {
      for (const run of runs) wakes.set(run.runId, (wakes.get(run.runId) ?? 0) + 1);
      return true;
    },
    log: silent,
  });
  const matcher = new Matcher({
    store: new SqlMatcherStore(sql, silent),
    index: new AgentIndex(),
    guards: new ActivationGuards(),
    activations: { enqueue: async () => {} },
    waits,
    log: silent,
    consumer: `m${newId()}`,
  });
  await matcher.load();
  const inbox: MatcherFact[] = [];
  let busy: Promise<void> = Promise.resolve();
  return {
    inbox,
    drain(): Promise<void> {
      busy = busy.then(async () => {
        const batch = inbox.splice(0);
        if (batch.length > 0) await matcher.handle(batch);
      });
      return busy;
    },
  };
}

/** Lets the event loop turn a few times: jitter without a sleep. */
async function turns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

async function arrangeAgents(t: TestSql, workspaceId: string): Promise<string[]> {
  const userId = newId();
  const agents: string[] = [];
  for (let i = 0; i < LANES; i++) {
    const agentId = newId();
    await t.pg.query(
      `INSERT INTO agents (id, workspace_id, name, latest_version, enabled, created_by, updated_at) VALUES ($1::uuid, $2, $1::text, 1, true, $3, now())`,
      [agentId, workspaceId, userId],
    );
    await t.pg.query(`INSERT INTO agent_versions (agent_id, version, schema_version, spec, created_by) VALUES ($1, 1, 1, '{}'::jsonb, $2)`, [agentId, userId]);
    agents.push(agentId);
  }
  return agents;
}

/** A run this runner holds (arranged directly: the claim is not what is under test). */
async function runningRun(db: SqlPool, workspaceId: string, slug: string, agentId: string): Promise<RunRef> {
  const id = newId();
  await db.$executeRawUnsafe(
    `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id, lane, queued_at, started_at, lease_owner, lease_until)
     VALUES ($1::uuid, $2::uuid, $3::uuid, 1, 'manual', jsonb_build_object('type', 'manual', 'input', 'go', 'userId', $1::uuid), 'running', $1::uuid, $4, now(), now(), $5, now() + interval '1 hour')`,
    id,
    workspaceId,
    agentId,
    `agent:${agentId}`,
    OWNER,
  );
  return { id, workspaceId, workspaceSlug: slug, agentId, agentVersion: 1, status: 'running', eventId: null, depth: 0 };
}

function acceptedFact(workspaceId: string, slug: string, kind: string, token: string): AcceptedFact {
  const fact: Omit<Fact, 'seq'> = { id: newId(), workspace: slug, kind, subject: { type: 'pipeline', id: token }, payload: { token }, ts: new Date().toISOString() };
  return { ...fact, workspaceId };
}
