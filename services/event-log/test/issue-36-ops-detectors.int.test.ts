import { OPS_FACT_KINDS } from '@switchyard/contracts';
import { agentLane } from '@switchyard/runs';
import { newId } from '@switchyard/core';
import { createLogger } from '@switchyard/logging';
import { SqlOpsStore } from '../src/adapters/sql-ops-store';
import { OpsWatcher, type OpsThresholds } from '../src/ops/ops-watcher';
import { insertLetter, insertRuns, opsFactsIn, opsTestContext, seedAgent, seedWorkspace } from './ops-fixtures';

/*
 * Issue 36 (ops facts), each detector on PostgreSQL with the rows the other
 * services leave: dead letters attributed to the workspace their message
 * names, model failures by provider and endpoint over the window, and lost
 * runners from the notes the run queue's lane claims take of lapsed leases.
 */

const log = createLogger({ service: 'test', level: 'silent' });
const WINDOW_MS = 60_000;

describe('ops detectors (PostgreSQL)', () => {
  const ctx = opsTestContext();

  const watcher = (thresholds: Partial<OpsThresholds> = {}) =>
    new OpsWatcher({
      store: new SqlOpsStore(ctx.t.sql),
      log,
      thresholds: { backlogDepth: 1000, deadLetters: 1, modelErrors: 2, ...thresholds },
      windowMs: WINDOW_MS,
      intervalMs: 60_000,
      clock: () => ctx.now,
    });
  const payloadsBySubject = async (kind: (typeof OPS_FACT_KINDS)[keyof typeof OPS_FACT_KINDS]) =>
    Object.fromEntries((await opsFactsIn(ctx.t.pg, kind)).map((fact) => [`${fact.workspace} ${fact.subject.id}`, fact.payload]));

  it('dead letters: one fact per workspace, stream and group with letters in the window, naming the newest; none for old, replayed or unattributable letters', async () => {
    const acme = await seedWorkspace(ctx.t.pg, 'acme');
    const globex = await seedWorkspace(ctx.t.pg, 'globex');
    await insertLetter(ctx.t.pg, { stream: 'sy:facts', group: 'notifier', workspaceId: acme.id, error: 'first' });
    const newest = await insertLetter(ctx.t.pg, { stream: 'sy:facts', group: 'notifier', workspaceId: acme.id, error: `second ${'x'.repeat(3000)}` });
    await insertLetter(ctx.t.pg, { stream: 'sy:ingest', group: 'event-log', workspaceId: acme.id });
    await insertLetter(ctx.t.pg, { stream: 'sy:facts', group: 'notifier', workspaceId: globex.id });
    // None of these makes a fact: replayed, older than the window, a message naming no (or no known) workspace.
    await insertLetter(ctx.t.pg, { stream: 'sy:facts', group: 'matcher', workspaceId: acme.id, replayed: true });
    await insertLetter(ctx.t.pg, { stream: 'sy:facts', group: 'approvals', workspaceId: acme.id, failedAt: new Date(ctx.now.getTime() - 2 * WINDOW_MS) });
    await insertLetter(ctx.t.pg, { stream: 'sy:ingest', group: 'event-log', message: 'not json \u00ff' });
    await insertLetter(ctx.t.pg, { stream: 'sy:ingest', group: 'event-log', workspaceId: newId() });
    // Another workspace's id quoted inside a string, even ahead of the message's own, is data: the letter is acme's.
    const quoting = JSON.stringify({ note: `"workspaceId":"${globex.id}"`, id: newId(), workspaceId: acme.id });
    await insertLetter(ctx.t.pg, { stream: 'sy:facts', group: 'quoting', message: quoting });

    expect(await watcher().tick()).toEqual({ recorded: 4, suppressed: 0 });
    const payloads = await payloadsBySubject(OPS_FACT_KINDS.deadLettersGrowing);
    expect(Object.keys(payloads).sort()).toEqual([
      'acme dead-letters:sy:facts/notifier',
      'acme dead-letters:sy:facts/quoting',
      'acme dead-letters:sy:ingest/event-log',
      'globex dead-letters:sy:facts/notifier',
    ]);
    const notifier = payloads['acme dead-letters:sy:facts/notifier'] as Record<string, any>;
    expect(notifier).toMatchObject({ stream: 'sy:facts', group: 'notifier', newLetters: 2, latest: { id: newest }, windowMs: WINDOW_MS });
    expect(notifier.latest.error).toHaveLength(500);
    expect(payloads['globex dead-letters:sy:facts/notifier']).toMatchObject({ newLetters: 1 });

    expect(await watcher().tick()).toEqual({ recorded: 0, suppressed: 4 });
    // A higher minimum: only the pair with two letters qualifies (and it is within its window).
    ctx.now = new Date(ctx.now.getTime() + WINDOW_MS / 2);
    expect(await watcher({ deadLetters: 2 }).tick()).toEqual({ recorded: 0, suppressed: 1 });
  });

  it('model errors: one fact per workspace and provider endpoint over the window; aborted calls, tries, old failures and other reasons not counted; below the minimum nothing', async () => {
    const acme = await seedWorkspace(ctx.t.pg, 'acme');
    const globex = await seedWorkspace(ctx.t.pg, 'globex');
    const operator = await seedAgent(ctx.t.pg, acme);
    const own = await seedAgent(ctx.t.pg, acme, { provider: 'openai', name: 'local', baseUrl: 'https://user:secret@models.example.com:8443/v1?key=secret' });
    const quiet = await seedAgent(ctx.t.pg, globex);
    const failed = (agent: string, reason: string, count: number, extra: object = {}) =>
      insertRuns(ctx.t.pg, agent === quiet ? globex : acme, agent, count, { status: 'failed', reason, endedAt: new Date(), ...extra });
    await failed(operator, 'model_rate_limited', 2);
    const [timedOut] = await failed(operator, 'model_timeout', 1);
    await failed(own, 'model_unavailable', 2);
    await failed(operator, 'model_aborted', 3);
    await failed(operator, 'model_unavailable', 3, { originType: 'try' });
    await failed(operator, 'model_unavailable', 3, { endedAt: new Date(ctx.now.getTime() - 2 * WINDOW_MS) });
    await failed(operator, 'runner_lost', 3);
    await failed(quiet, 'model_auth_failed', 1);

    expect(await watcher().tick()).toEqual({ recorded: 2, suppressed: 0 });
    const payloads = await payloadsBySubject(OPS_FACT_KINDS.modelErrors);
    expect(Object.keys(payloads).sort()).toEqual(['acme model:openai', 'acme model:openai@https://models.example.com:8443']);
    expect(payloads['acme model:openai']).toMatchObject({
      provider: 'openai',
      endpoint: null,
      failures: 3,
      byCode: { model_rate_limited: 2, model_timeout: 1 },
      agents: [{ agentId: operator, failures: 3 }],
    });
    expect((payloads['acme model:openai'] as { sampleRunIds: string[] }).sampleRunIds).toContain(timedOut);
    const ownPayload = payloads['acme model:openai@https://models.example.com:8443']!;
    expect(ownPayload).toMatchObject({ endpoint: 'https://models.example.com:8443', failures: 2, byCode: { model_unavailable: 2 } });
    expect(JSON.stringify(ownPayload)).not.toContain('secret');

    // The next window: the failures are older than it, nothing is recorded; new ones are.
    ctx.now = new Date(ctx.now.getTime() + WINDOW_MS + 1000);
    expect(await watcher().tick()).toEqual({ recorded: 0, suppressed: 0 });
    await insertRuns(ctx.t.pg, acme, operator, 2, { status: 'failed', reason: 'model_bad_request', endedAt: ctx.now });
    expect(await watcher().tick()).toEqual({ recorded: 1, suppressed: 0 });
  });

  it('runner lost: a lane claim notes the lapsed leases it takes over; one fact per runner and workspace naming its runs, lapsed and still held', async () => {
    const acme = await seedWorkspace(ctx.t.pg, 'acme');
    const globex = await seedWorkspace(ctx.t.pg, 'globex');
    const lapsedAt = new Date(Date.now() - 5_000);
    const held = (ws: typeof acme, agent: string, owner: string, until: Date) => insertRuns(ctx.t.pg, ws, agent, 1, { status: 'running', leaseOwner: owner, leaseUntil: until }).then(([id]) => id!);
    const [a1, a2, a3, g1] = [await seedAgent(ctx.t.pg, acme), await seedAgent(ctx.t.pg, acme), await seedAgent(ctx.t.pg, acme), await seedAgent(ctx.t.pg, globex)];
    const name = `runner-${'ü'.repeat(300)}`;
    const r1 = await held(acme, a1, name, lapsedAt);
    const r2 = await held(acme, a2, name, lapsedAt);
    const r3 = await held(acme, a3, name, new Date(Date.now() + 60_000));
    const alive = await held(acme, a3, 'alive', new Date(Date.now() + 60_000));
    const g = await held(globex, g1, name, lapsedAt);
    const claim = (agent: string) => ctx.t.pg.query(`SELECT run_queue_claim_lane($1, 'sweeper', 30000, 0) AS r`, [agentLane(agent)]);
    const notes = async () => Number((await ctx.t.pg.query('SELECT count(*) FROM run_lease_lapses')).rows[0].count);

    // A claim of a lane whose leases are alive notes nothing.
    await claim(a3);
    expect(await notes()).toBe(0);
    // Noted, then back in line (decision 0051): a claim of no slots starts nothing and fails nothing.
    const claimed = (await claim(a1)).rows[0].r;
    expect(claimed).toEqual({ started: [], lost: [] });
    expect(await notes()).toBe(1);

    expect(await watcher().tick()).toEqual({ recorded: 1, suppressed: 0 });
    const [fact] = await opsFactsIn(ctx.t.pg, OPS_FACT_KINDS.runnerLost);
    expect(fact).toMatchObject({ workspace: 'acme', subject: { type: 'platform', id: `runner:${name}`.slice(0, 256) }, actor: { type: 'system', id: 'switchyard' } });
    expect(fact!.payload).toMatchObject({ runner: name, runCount: 3, lapsedAt: lapsedAt.toISOString() });
    expect(fact!.payload.runs).toEqual([
      { runId: r1, agentId: a1, lane: agentLane(a1), lapsed: true },
      ...[
        { runId: r2, agentId: a2, lane: agentLane(a2), lapsed: false },
        { runId: r3, agentId: a3, lane: agentLane(a3), lapsed: false },
      ].sort((x, y) => x.runId.localeCompare(y.runId)),
    ]);
    expect(JSON.stringify(fact!.payload)).not.toContain(alive);
    expect(await notes()).toBe(0);

    // The same runner's other lane, found by a later claim in the window: noted, settled, no second fact.
    await claim(a2);
    expect(await notes()).toBe(1);
    expect(await watcher().tick()).toEqual({ recorded: 0, suppressed: 1 });
    expect(await notes()).toBe(0);
    // Its other workspace gets its own fact.
    await claim(g1);
    expect(await watcher().tick()).toEqual({ recorded: 1, suppressed: 0 });
    const facts = await opsFactsIn(ctx.t.pg, OPS_FACT_KINDS.runnerLost);
    expect(facts.map((f) => [f.workspace, f.payload.runCount])).toEqual([['acme', 3], ['globex', 1]]);
    expect((facts[1]!.payload.runs as Array<{ runId: string }>).map((run) => run.runId)).toEqual([g]);
    // A note taken while no watcher looked, older than the window, is news no more: no fact, and it is pruned.
    const [stale] = await insertRuns(ctx.t.pg, globex, g1, 1, { status: 'running', leaseOwner: 'long-gone', leaseUntil: lapsedAt });
    await ctx.t.pg.query(
      `INSERT INTO run_lease_lapses (run_id, workspace_id, agent_id, lane, lease_owner, lease_until, noted_at) VALUES ($1, $2, $3, $4, 'long-gone', $5, $6)`,
      [stale, globex.id, g1, agentLane(g1), lapsedAt, new Date(ctx.now.getTime() - 2 * WINDOW_MS)],
    );
    expect(await watcher().tick()).toEqual({ recorded: 0, suppressed: 0 });
    expect(await notes()).toBe(0);
    // What became of the runs is the run queue's business: back in line, for another runner to continue (decision 0051).
    const { rows } = await ctx.t.pg.query('SELECT status::text, reason FROM runs WHERE id = ANY($1::uuid[])', [[r1, r2, g]]);
    expect(rows).toEqual([0, 1, 2].map(() => ({ status: 'queued', reason: null })));
  });
});
