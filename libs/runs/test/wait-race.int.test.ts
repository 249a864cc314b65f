import type { AcceptedFact, Fact } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { SqlFactStore, SqlPool } from '@switchyard/db';
import { createTestSql, type TestSql } from '@switchyard/testing';
import { resumeHeldWaits, SqlWaitBook, SqlWaitParking, type RunRef, type WaitParkOutcome } from '../src';

/**
 * Issue 30, wait_for_event's lost wake-up (decision 0055): the awaited fact is
 * appended (the event-log's own SqlFactStore) and handed to the matcher's
 * resolver while the run parks, on separate pools, so the two transactions
 * really meet at the workspace's seq row. Every trial must end exactly one
 * way: the park's check saw the fact (the run goes on, no wait written), or
 * the park committed first and the resolver resumed the run — once.
 */
const TRIALS = 10_000;
const WORKSPACES = 2;
const WORKERS_PER_WORKSPACE = 4;
const OWNER = 'race-runner';

interface Lane {
  workspaceId: string;
  slug: string;
  agentId: string;
}

interface Tally {
  seenByCheck: number;
  resumedByMatcher: number;
  lost: number;
  doubled: number;
}

describe('wait_for_event race (real PostgreSQL)', () => {
  let t: TestSql;
  let parkPool: SqlPool;
  let factPool: SqlPool;
  let matchPool: SqlPool;
  let arrangePool: SqlPool;

  beforeAll(async () => {
    t = await createTestSql();
    const workers = WORKSPACES * WORKERS_PER_WORKSPACE;
    parkPool = new SqlPool({ databaseUrl: t.db.url, poolMax: workers });
    factPool = new SqlPool({ databaseUrl: t.db.url, poolMax: workers });
    matchPool = new SqlPool({ databaseUrl: t.db.url, poolMax: workers });
    arrangePool = new SqlPool({ databaseUrl: t.db.url, poolMax: 4 });
  });

  afterAll(async () => {
    await Promise.all([parkPool.$disconnect(), factPool.$disconnect(), matchPool.$disconnect(), arrangePool.$disconnect()]);
    await t.close();
  });

  it('10,000 trials with the fact recorded concurrently with the park: 0 lost, 0 double resumes', async () => {
    const lanes = await arrangeLanes(t);
    const parking = new SqlWaitParking(parkPool, { owner: OWNER, leaseMs: 60_000 });
    const facts = new SqlFactStore(factPool);
    const book = new SqlWaitBook(matchPool);
    const tally: Tally = { seenByCheck: 0, resumedByMatcher: 0, lost: 0, doubled: 0 };
    const perWorker = TRIALS / lanes.length;
    await Promise.all(
      lanes.map(async (lane) => {
        for (let i = 0; i < perWorker; i++) await trial(arrangePool, lane, parking, facts, book, tally);
      }),
    );
    // Printed for the record (docs/decisions/0055): how often each side won.
    console.info(`wait race: ${JSON.stringify(tally)}`);
    expect(tally.lost).toBe(0);
    expect(tally.doubled).toBe(0);
    expect(tally.seenByCheck + tally.resumedByMatcher).toBe(TRIALS);
    // Both orders happened: the race was really run, not one side always first.
    expect(tally.seenByCheck).toBeGreaterThan(0);
    expect(tally.resumedByMatcher).toBeGreaterThan(0);
  }, 600_000);

  it('the kill switch holds a resume: 1,000 trials with the unpause concurrent with the fact: none resumed while paused, 0 lost, 0 doubled', async () => {
    // One lane per workspace: each trial pauses and unpauses its workspace.
    const lanes = (await arrangeLanes(t, 'held')).filter((lane, i, all) => all.findIndex((other) => other.workspaceId === lane.workspaceId) === i);
    const parking = new SqlWaitParking(parkPool, { owner: OWNER, leaseMs: 60_000 });
    const facts = new SqlFactStore(factPool);
    const book = new SqlWaitBook(matchPool);
    const tally = { heldThenResumedByUnpause: 0, resumedByResolve: 0, lost: 0, doubled: 0 };
    const perWorker = 1_000 / lanes.length;
    await Promise.all(
      lanes.map(async (lane) => {
        for (let i = 0; i < perWorker; i++) {
          await setPaused(arrangePool, lane.workspaceId, true);
          const run = await runningRun(arrangePool, lane);
          const token = newId();
          const afterSeq = await parking.currentSeq(lane.workspaceId);
          const parked = await parking.park(run, { toolCallId: 'call-1', kind: 'ci.*', filter: { path: 'payload.token', op: 'eq', value: token }, timeoutMs: 600_000, afterSeq }, 0);
          if (parked.type !== 'parked') throw new Error(`park refused: ${parked.type}`);
          const [byResolve, byUnpause] = await Promise.all([
            (async () => {
              const [outcome] = await facts.append([acceptedFact(lane, token)]);
              if (outcome?.status !== 'inserted') throw new Error(`fact not stored: ${outcome?.status}`);
              return (await book.matchFacts([{ workspaceId: lane.workspaceId, fact: outcome.fact }])).filter((resumed) => resumed.runId === run.id).length;
            })(),
            (async () => {
              // Jitter of a few round trips: the fact's side takes several (its append, the match).
              for (let n = Math.floor(Math.random() * 6); n > 0; n--) await factPool.$queryRawUnsafe('SELECT 1');
              await setPaused(factPool, lane.workspaceId, false);
              // As the approvals service does on the unpause's fact: after its commit.
              return (await resumeHeldWaits(matchPool, matchPool, lane.workspaceId, 100)).filter((resumed) => resumed.runId === run.id).length;
            })(),
          ]);
          const [row] = await arrangePool.$queryRawUnsafe<Array<{ status: string; resumes: number }>>(
            'SELECT status::text AS status, resumes FROM runs WHERE id = $1::uuid',
            run.id,
          );
          if (row!.status === 'awaiting_event') tally.lost++;
          else if (byResolve + byUnpause !== 1 || row!.resumes !== 1) tally.doubled++;
          else if (byUnpause === 1) tally.heldThenResumedByUnpause++;
          else tally.resumedByResolve++;
          await arrangePool.$executeRawUnsafe(`UPDATE runs SET status = 'completed', ended_at = now() WHERE lane = $1 AND status IN ('queued', 'running')`, `agent:${lane.agentId}`);
        }
      }),
    );
    console.info(`wait kill-switch race: ${JSON.stringify(tally)}`);
    expect(tally.lost).toBe(0);
    expect(tally.doubled).toBe(0);
    // Both orders happened: the resolution held by the switch (resumed by the unpause) and the one after it.
    expect(tally.heldThenResumedByUnpause).toBeGreaterThan(0);
    expect(tally.resumedByResolve).toBeGreaterThan(0);

    // While paused, a resolution holds the run: it stays parked, its wait resolved.
    const [lane] = lanes;
    await setPaused(arrangePool, lane!.workspaceId, true);
    const run = await runningRun(arrangePool, lane!);
    const afterSeq = await parking.currentSeq(lane!.workspaceId);
    await parking.park(run, { toolCallId: 'call-1', kind: 'ci.*', filter: null, timeoutMs: 600_000, afterSeq }, 0);
    const [outcome] = await facts.append([acceptedFact(lane!, newId())]);
    if (outcome?.status !== 'inserted') throw new Error(`fact not stored: ${outcome?.status}`);
    expect(await book.matchFacts([{ workspaceId: lane!.workspaceId, fact: outcome.fact }])).toEqual([]);
    expect(await resumeHeldWaits(matchPool, matchPool, null, 100)).toEqual([]);
    const [held] = await arrangePool.$queryRawUnsafe<Array<{ status: string; wait: string }>>(
      `SELECT r.status::text AS status, w.status AS wait FROM runs r JOIN run_waits w ON w.run_id = r.id WHERE r.id = $1::uuid`,
      run.id,
    );
    expect(held).toEqual({ status: 'awaiting_event', wait: 'matched' });
    await setPaused(arrangePool, lane!.workspaceId, false);
    expect((await resumeHeldWaits(matchPool, matchPool, null, 100)).map((resumed) => resumed.runId)).toEqual([run.id]);
    expect(await resumeHeldWaits(matchPool, matchPool, null, 100)).toEqual([]);
  }, 600_000);
});

/** The workspace's kill switch, as the gateway's settings save writes it (one row per workspace). */
async function setPaused(db: SqlPool, workspaceId: string, paused: boolean): Promise<void> {
  await db.$executeRawUnsafe(
    `INSERT INTO workspace_settings (workspace_id, agents_paused, updated_at) VALUES ($1::uuid, $2, now())
     ON CONFLICT (workspace_id) DO UPDATE SET agents_paused = excluded.agents_paused, updated_at = now()`,
    workspaceId,
    paused,
  );
}

/** One trial: a running run, its wait's seq taken, then its park and the awaited fact side by side. */
async function trial(db: SqlPool, lane: Lane, parking: SqlWaitParking, facts: SqlFactStore, book: SqlWaitBook, tally: Tally): Promise<void> {
  const run = await runningRun(db, lane);
  const token = newId();
  const afterSeq = await parking.currentSeq(lane.workspaceId);
  const filter = { path: 'payload.token', op: 'eq', value: token } as const;
  const [parked, resumedRuns] = await Promise.all([
    parking.park(run, { toolCallId: 'call-1', kind: 'ci.*', filter, timeoutMs: 600_000, afterSeq }, 0),
    (async () => {
      await yieldTurns(Math.floor(Math.random() * 4));
      const [outcome] = await facts.append([acceptedFact(lane, token)]);
      if (outcome?.status !== 'inserted') throw new Error(`fact not stored: ${outcome?.status}`);
      // As the matcher does: after the commit, the stored fact.
      return book.matchFacts([{ workspaceId: lane.workspaceId, fact: outcome.fact }]);
    })(),
  ]);
  const byMatcher = resumedRuns.filter((resumed) => resumed.runId === run.id).length;
  const [row] = await db.$queryRawUnsafe<Array<{ status: string; resumes: number }>>('SELECT status::text AS status, resumes FROM runs WHERE id = $1::uuid', run.id);
  count(tally, parked, byMatcher, row!);
}

function count(tally: Tally, parked: WaitParkOutcome, byMatcher: number, row: { status: string; resumes: number }): void {
  if (parked.type === 'matched') {
    tally.seenByCheck++;
    if (byMatcher > 0 || row.status !== 'running') tally.doubled++;
    return;
  }
  if (parked.type !== 'parked') throw new Error(`park refused: ${parked.type}`);
  if (byMatcher === 0 || row.status === 'awaiting_event') tally.lost++;
  else if (byMatcher > 1 || row.resumes !== 1) tally.doubled++;
  else tally.resumedByMatcher++;
}

/** Lets the event loop turn a few times: jitter between the two sides without a sleep. */
async function yieldTurns(turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

async function arrangeLanes(t: TestSql, prefix = 'race'): Promise<Lane[]> {
  const userId = newId();
  const lanes: Lane[] = [];
  for (let w = 0; w < WORKSPACES; w++) {
    const workspaceId = newId();
    const slug = `${prefix}-${w}`;
    await t.pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, $2)`, [workspaceId, slug]);
    await t.pg.query(`INSERT INTO workspace_event_seq (workspace_id) VALUES ($1)`, [workspaceId]);
    for (let i = 0; i < WORKERS_PER_WORKSPACE; i++) {
      const agentId = newId();
      await t.pg.query(
        `INSERT INTO agents (id, workspace_id, name, latest_version, enabled, created_by, updated_at) VALUES ($1::uuid, $2, $1::text, 1, true, $3, now())`,
        [agentId, workspaceId, userId],
      );
      await t.pg.query(`INSERT INTO agent_versions (agent_id, version, schema_version, spec, created_by) VALUES ($1, 1, 1, '{}'::jsonb, $2)`, [agentId, userId]);
      lanes.push({ workspaceId, slug, agentId });
    }
  }
  return lanes;
}

/** A run this runner holds (arranged directly: the claim is not what is under test). */
async function runningRun(db: SqlPool, lane: Lane): Promise<RunRef> {
  const id = newId();
  await db.$executeRawUnsafe(
    `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, session_id, lane, queued_at, started_at, lease_owner, lease_until)
     VALUES ($1::uuid, $2::uuid, $3::uuid, 1, 'manual', jsonb_build_object('type', 'manual', 'input', 'go', 'userId', $1::uuid), 'running', $1::uuid, $4, now(), now(), $5, now() + interval '1 hour')`,
    id,
    lane.workspaceId,
    lane.agentId,
    `agent:${lane.agentId}`,
    OWNER,
  );
  return { id, workspaceId: lane.workspaceId, workspaceSlug: lane.slug, agentId: lane.agentId, agentVersion: 1, status: 'running', eventId: null, depth: 0 };
}

function acceptedFact(lane: Lane, token: string): AcceptedFact {
  const fact: Omit<Fact, 'seq'> = {
    id: newId(),
    workspace: lane.slug,
    kind: 'ci.finished',
    subject: { type: 'pipeline', id: token },
    payload: { token },
    ts: new Date().toISOString(),
  };
  return { ...fact, workspaceId: lane.workspaceId };
}
