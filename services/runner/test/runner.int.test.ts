import { Queue } from 'bullmq';
import { duplicateRedis } from '@switchyard/redis';
import { Client } from 'pg';
import { QUEUES } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { apiClient, postFactsConcurrently, startTestPlatform, streamGroupStatsOf, waitFor, type TestPlatform, scripted } from './runner-test-helpers';

/**
 * The runner end to end over real processes (gateway, event-log, matcher,
 * runners), PostgreSQL and Redis: runs of one agent are serialized and FIFO
 * across runner processes, a runner killed mid-run leaves no run stuck and no
 * run twice, and stops (a person's, the kill switch) cancel a running run at
 * its next step.
 */
jest.setTimeout(120_000);

/** Short leases and locks so a killed runner is noticed in seconds, not the production 30 s. */
const FAST_RECOVERY = { RUNNER_LEASE_MS: '2000', RUNNER_LOCK_DURATION_MS: '2000', RUNNER_STALLED_INTERVAL_MS: '1000' };


interface RunRow {
  id: string;
  status: string;
  reason: string | null;
  started_at: Date | null;
  ended_at: Date | null;
  seq: string;
}

describe('runner (real processes)', () => {
  let platform: TestPlatform;
  let pg: Client;
  afterEach(async () => {
    await pg?.end();
    await platform?.stop();
  });
  const start = async (runners: number, env: Record<string, string> = {}) => {
    platform = await startTestPlatform({ matcher: true, runners, env: { CLAIM_IDLE_MS: '1000', ...env } });
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
  };
  const runs = async (agentId: string) =>
    (await pg.query<RunRow>(
      `SELECT r.id::text, r.status::text, r.reason, r.started_at, r.ended_at, e.seq::text
         FROM runs r JOIN platform_events e ON e.id = r.event_id WHERE r.agent_id = $1 ORDER BY e.seq`,
      [agentId],
    )).rows;
  const TERMINAL = ['completed', 'failed', 'cancelled', 'dropped'];
  const allEnded = (count: number, agentId: string) =>
    waitFor(async () => {
      const rows = await runs(agentId);
      return rows.length === count && rows.every((r) => TERMINAL.includes(r.status));
    }, { timeoutMs: 90_000, intervalMs: 200, what: 'every run ended' });
  /** Waits until the run facts went through the event-log (so they can be counted). */
  const settle = () => waitFor(async () => (await streamGroupStatsOf(platform, 'ingest', 'event-log')).idle, { timeoutMs: 30_000, intervalMs: 100, what: 'ingest drained' });
  /** Terminal `agent.run.*` facts recorded per run id. */
  const terminalFacts = async () =>
    (await pg.query<{ id: string; n: number }>(
      `SELECT subject_id AS id, count(*)::int AS n FROM platform_events
        WHERE kind IN ('agent.run.completed', 'agent.run.failed', 'agent.run.cancelled') GROUP BY subject_id`,
    )).rows;

  /** Waits for a run in progress once `completed` runs have ended, SIGKILLs the runner executing it, and returns the run. */
  const killRunnerMidRun = async (agentId: string, completed: number) => {
    const victim = await waitFor(async () => {
      const rows = await runs(agentId);
      if (rows.filter((r) => r.status === 'completed').length < completed) return undefined;
      return rows.find((r) => r.status === 'running');
    }, { timeoutMs: 60_000, intervalMs: 20, what: 'a run in progress' });
    // The run's lease names the runner holding it; each runner names itself as it starts.
    const { lease_owner: owner } = (await pg.query<{ lease_owner: string }>('SELECT lease_owner FROM runs WHERE id = $1', [victim.id])).rows[0]!;
    const holder = platform.runners.find((proc) => proc.output().includes(`"runner":"${owner}"`));
    if (!holder) throw new Error(`no runner process named ${owner}`);
    await holder.stop('SIGKILL');
    return victim;
  };

  it('200 facts, 3 runners, concurrency 1: every run completes, none overlap, they start in fact order', async () => {
    await start(3);
    const token = await platform.createWorkspace('serial');
    const api = apiClient(platform.gatewayUrl, token);
    const agent = (await api('POST', '/v1/workspaces/serial/agents', scripted('serial', 'load.fact', 2, 25))).body.id as string;
    const began = Date.now();
    const load = await postFactsConcurrently({ baseUrl: platform.gatewayUrl, workspace: 'serial', token, count: 200, concurrency: 8, batchSize: 1 });
    expect(load.unexpected).toEqual([]);
    await allEnded(200, agent);
    const elapsed = Date.now() - began;
    const rows = await runs(agent);
    expect(rows.map((r) => r.status)).toEqual(rows.map(() => 'completed'));
    const byStart = [...rows].sort((a, b) => a.started_at!.getTime() - b.started_at!.getTime());
    for (let i = 1; i < byStart.length; i++) {
      // Never two at once: each run started once the previous one had ended.
      expect(byStart[i]!.started_at!.getTime()).toBeGreaterThanOrEqual(byStart[i - 1]!.ended_at!.getTime());
    }
    // FIFO: start order is fact (seq) order.
    expect(byStart.map((r) => Number(r.seq))).toEqual(rows.map((r) => Number(r.seq)));
    await settle();
    const facts = await terminalFacts();
    expect(facts).toHaveLength(200);
    expect(facts.every((f) => f.n === 1)).toBe(true);
    const gaps = byStart.slice(1).map((r, i) => r.started_at!.getTime() - byStart[i]!.ended_at!.getTime());
    const busy = rows.map((r) => r.ended_at!.getTime() - r.started_at!.getTime());
    const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
    process.stdout.write(`200 runs through 3 runners in ${elapsed} ms (run ${mean(busy)} ms, gap between runs ${mean(gaps)} ms on average)\n`);
  });

  it('SIGKILL of a runner mid-run: every run ends exactly once, the lost one continued by another runner and completed', async () => {
    await start(2, FAST_RECOVERY);
    const token = await platform.createWorkspace('crash');
    const api = apiClient(platform.gatewayUrl, token);
    const agent = (await api('POST', '/v1/workspaces/crash/agents', scripted('crash', 'load.fact', 4, 50))).body.id as string;
    await postFactsConcurrently({ baseUrl: platform.gatewayUrl, workspace: 'crash', token, count: 30, concurrency: 4, batchSize: 1 });
    const victim = await killRunnerMidRun(agent, 3);
    const killedAt = Date.now();
    // Issue 13: a message to the dead runner's session is not dropped: the run that continues reads it (decision 0051).
    const { session_id: sessionId } = (await pg.query<{ session_id: string }>('SELECT session_id::text FROM runs WHERE id = $1', [victim.id])).rows[0]!;
    const message = await api('POST', `/v1/workspaces/crash/sessions/${sessionId}/messages`, { content: 'anyone there?' });
    await platform.startRunner(FAST_RECOVERY);
    await allEnded(30, agent);
    process.stdout.write(`after the SIGKILL every run ended in ${Date.now() - killedAt} ms\n`);
    const rows = await runs(agent);
    const lost = rows.find((r) => r.id === victim.id)!;
    process.stdout.write(`killed run: ${lost.status} (${lost.reason ?? 'no reason'})\n`);
    // Caught mid-run, it went back in line and another runner continued it; or it had just completed.
    expect(lost).toMatchObject({ status: 'completed', reason: null });
    if (message.status === 202) {
      const read = async () =>
        ((await api('GET', `/v1/workspaces/crash/runs/${victim.id}/transcript?limit=500`)).body.entries as any[]).find(
          (entry) => entry.type === 'user' && entry.content.envelopeId === message.body.id,
        );
      const found = await waitFor(read, { timeoutMs: 10_000, intervalMs: 100, what: 'the message read by the run that continued' });
      expect(found.content.text).toContain('anyone there?');
    } else {
      expect(message.status).toBe(409);
    }
    expect((await api('POST', `/v1/workspaces/crash/sessions/${sessionId}/messages`, { content: 'hello?' })).status).toBe(409);
    expect(rows.filter((r) => r.id !== victim.id).every((r) => r.status === 'completed')).toBe(true);
    await settle();
    const facts = await terminalFacts();
    expect(facts).toHaveLength(30);
    expect(facts.every((f) => f.n === 1)).toBe(true);
  });

  it('bursts to an agent with concurrency 4, 2 runners, one SIGKILLed mid-burst: never more than 4 at once, every run ends once', async () => {
    await start(2, FAST_RECOVERY);
    const token = await platform.createWorkspace('burst');
    const api = apiClient(platform.gatewayUrl, token);
    const agent = (await api('POST', '/v1/workspaces/burst/agents', scripted('burst', 'load.fact', 3, 40, { concurrency: 4 }))).body.id as string;
    // Ten facts to a request: each burst queues ten runs at once, and one claim starts up to
    // the agent's four.
    await postFactsConcurrently({ baseUrl: platform.gatewayUrl, workspace: 'burst', token, count: 60, concurrency: 2, batchSize: 10 });
    await killRunnerMidRun(agent, 8);
    await platform.startRunner(FAST_RECOVERY);
    await allEnded(60, agent);
    const rows = await runs(agent);
    const outcomes = rows.map((r) => `${r.status}:${r.reason}`);
    // The killed runner's runs (at most the agent's four leases) were continued by the other runners: every run completed.
    expect(outcomes.filter((o) => o !== 'completed:null')).toEqual([]);
    // The completed runs' recorded intervals never overlap more than four deep (an ending and
    // the start its claim makes may share a timestamp: ends count first).
    const edges = rows
      .filter((r) => r.status === 'completed')
      .flatMap((r) => [[r.started_at!.getTime(), 1], [r.ended_at!.getTime(), -1]] as const)
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let depth = 0;
    let deepest = 0;
    for (const [, step] of edges) deepest = Math.max(deepest, (depth += step));
    expect(deepest).toBeLessThanOrEqual(4);
    expect(deepest).toBeGreaterThan(1);
    await settle();
    const facts = await terminalFacts();
    expect(facts).toHaveLength(60);
    expect(facts.every((f) => f.n === 1)).toBe(true);
  });

  it('the sweep starts queued runs no live job wakes: one never had one, one whose job failed', async () => {
    await start(1, { RUNNER_LEASE_MS: '500', RUNNER_SWEEP_INTERVAL_MS: '300' });
    const token = await platform.createWorkspace('orphans');
    const api = apiClient(platform.gatewayUrl, token);
    const agent = (await api('POST', '/v1/workspaces/orphans/agents', scripted('orphans', 'load.fact', 1, 0))).body.id as string;
    await postFactsConcurrently({ baseUrl: platform.gatewayUrl, workspace: 'orphans', token, count: 1, concurrency: 1, batchSize: 1 });
    await allEnded(1, agent);
    // Two copies of the finished run, queued a while ago as a lost claim would leave them
    // (manual runs, so the trigger dedup index allows them): the first has no job at all;
    // the second has a job that failed (its data does not parse), added first so that the
    // sweep cannot give it a good one before.
    const copies = [newId(), newId()];
    const connection = duplicateRedis(platform.redis.redis, { maxRetriesPerRequest: null });
    const queue = new Queue(QUEUES.activations, { connection, prefix: platform.redis.prefix });
    try {
      await queue.add('run', { broken: true }, { jobId: copies[1] });
      await waitFor(async () => (await queue.getJobState(copies[1]!)) === 'failed', { timeoutMs: 10_000, intervalMs: 50, what: 'the broken job failed' });
      for (const id of copies) {
        await pg.query(
          `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, event_id, event_kind, status, depth, session_id, queued_at)
           SELECT $1::uuid, workspace_id, agent_id, agent_version, 'manual', origin, event_id, event_kind, 'queued', depth, $2::uuid, now() - interval '5 seconds'
             FROM runs WHERE agent_id = $3::uuid LIMIT 1`,
          [id, newId(), agent],
        );
      }
      const statuses = async () => (await pg.query<{ status: string }>(`SELECT status::text FROM runs WHERE id = ANY($1::uuid[])`, [copies])).rows.map((r) => r.status);
      await waitFor(async () => (await statuses()).join() === 'completed,completed', { timeoutMs: 20_000, intervalMs: 100, what: 'the swept runs completed' });
      expect(platform.runners[0]!.output()).toContain('the sweep started queued runs no job had');
    } finally {
      await queue.close();
      connection.disconnect();
    }
  });

  it('a stop request cancels a running run; the kill switch cancels one at its next step', async () => {
    await start(1);
    const token = await platform.createWorkspace('stops');
    const api = apiClient(platform.gatewayUrl, token);
    const slow = (await api('POST', '/v1/workspaces/stops/agents', scripted('slow', 'slow.go', 50, 100))).body.id as string;
    const running = async (agentId: string) =>
      waitFor(async () => (await runs(agentId)).find((r) => r.status === 'running'), { timeoutMs: 30_000, intervalMs: 20, what: 'a running run' });

    await api('POST', '/v1/workspaces/stops/events', { kind: 'slow.go', subject: { type: 't', id: '1' } });
    const first = await running(slow);
    expect((await api('POST', `/v1/workspaces/stops/runs/${first.id}/stop`)).status).toBe(202);
    await allEnded(1, slow);
    expect((await runs(slow))[0]).toMatchObject({ status: 'cancelled', reason: 'stopped' });

    await api('POST', '/v1/workspaces/stops/events', { kind: 'slow.go', subject: { type: 't', id: '2' } });
    const second = await waitFor(async () => (await runs(slow)).find((r) => r.status === 'running' && r.id !== first.id), { timeoutMs: 30_000, intervalMs: 20, what: 'second run running' });
    expect((await api('PUT', '/v1/workspaces/stops/settings', { agentsPaused: true })).status).toBe(200);
    await allEnded(2, slow);
    expect((await runs(slow)).find((r) => r.id === second.id)).toMatchObject({ status: 'cancelled', reason: 'agents_paused' });
    // And the runner stops cleanly on SIGTERM.
    expect(await platform.runners[0]!.stop('SIGTERM')).toBe(0);
  });
});
