import { Client } from 'pg';
import { APPROVAL_FACT_KINDS, QUEUES } from '@switchyard/contracts';
import { approvalFact } from '@switchyard/core';
import { recordFacts, SqlPool } from '@switchyard/db';
import { ApprovalStore } from '@switchyard/runs';
import { createActivationQueue, type ActivationQueue } from '@switchyard/redis';
import { apiClient, insertApproval, insertParkedRun, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { Queue } from 'bullmq';

type Api = ReturnType<typeof apiClient>;

/**
 * The approvals service as a process (decision 0025), with the real gateway
 * and event-log: expiry by delayed BullMQ job, a decision racing the expiry,
 * resumes held by the kill switch, and a SIGTERM and restart that lose
 * nothing. A park is written as the runner's would be: the run and its
 * approval rows, and `approval.requested` through the outbox. The sweep runs
 * only at start-up here (its interval is an hour), so an expiry seen between
 * starts came from its delayed job.
 */
describe('approvals service', () => {
  let platform: TestPlatform;
  let admin: Api;
  let pg: Client;
  let sql: SqlPool;
  let store: ApprovalStore;
  let activations: ActivationQueue;
  let expiries: Queue;
  let acmeId: string;
  let agentId: string;
  const ws = '/v1/workspaces/acme';
  const workspace = () => ({ id: acmeId, slug: 'acme' });

  beforeAll(async () => {
    platform = await startTestPlatform({ approvals: true, env: { APPROVALS_SWEEP_INTERVAL_MS: '3600000' } });
    admin = apiClient(platform.gatewayUrl, await platform.createWorkspace('acme'));
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    sql = new SqlPool({ databaseUrl: platform.db.url, poolMax: 4 });
    // A store on the test's own pool, for the fixtures' reads only.
    store = new ApprovalStore(sql, { transaction: () => Promise.reject(new Error('not used')) });
    activations = createActivationQueue(platform.redis.redis, platform.redis.prefix);
    expiries = new Queue(QUEUES.approvalExpiry, { connection: platform.redis.redis, prefix: platform.redis.prefix });
    acmeId = (await pg.query(`SELECT id::text FROM workspaces WHERE slug = 'acme'`)).rows[0].id;
    agentId = (await admin('POST', `${ws}/agents`, { name: 'fixer', instructions: 'Do it.', model: { provider: 'scripted', name: 'demo' }, script: [{ say: 'done' }], triggers: [{ kind: 'build.*' }] })).body.id;
  }, 180_000);
  afterAll(async () => {
    await expiries?.close();
    await activations?.close();
    await sql?.$disconnect();
    await pg?.end();
    await platform?.stop();
  });

  /** What the runner's park leaves: a parked run, its pending approval, and approval.requested in the outbox. */
  async function park(expiresInMs: number) {
    const runId = await insertParkedRun(pg, { workspaceId: acmeId, agentId });
    const id = await insertApproval(pg, { workspaceId: acmeId, runId, agentId, expiresAt: new Date(Date.now() + expiresInMs) });
    const approval = (await store.get(workspace(), id))!;
    const fact = approvalFact({ workspaceId: acmeId, workspaceSlug: 'acme', actor: { type: 'system', id: 'switchyard' } }, APPROVAL_FACT_KINDS.requested, approval, { runId, agentId, depth: 1 });
    await recordFacts(sql, [{ fact, correlationId: runId }]);
    return { runId, id };
  }
  const approvalRow = async (id: string) => (await pg.query(`SELECT status, decided_by FROM approvals WHERE id = $1`, [id])).rows[0];
  const runStatus = async (id: string) => (await pg.query(`SELECT status::text FROM runs WHERE id = $1`, [id])).rows[0].status;
  const resumeJobs = async (runId: string) => (await activations.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed'])).filter((job) => job.id?.startsWith(`${runId}-resume-`));
  const factKinds = async (subjectId: string) => {
    await platform.factsRecorded();
    return (await pg.query(`SELECT kind FROM platform_events WHERE subject_id = $1 ORDER BY seq`, [subjectId])).rows.map((row) => row.kind);
  };

  it('expires an approval by its delayed job: denied by the platform, approval.expired, the run resumed', async () => {
    const { runId, id } = await park(3_000);
    await waitFor(async () => (await expiries.getJob(id))?.opts.delay !== undefined, { what: 'the expiry job scheduled', timeoutMs: 30_000 });
    expect(await approvalRow(id)).toMatchObject({ status: 'pending' });
    await waitFor(async () => (await approvalRow(id)).status === 'expired', { what: 'the approval expired', timeoutMs: 30_000 });
    expect(await approvalRow(id)).toEqual({ status: 'expired', decided_by: { type: 'system', reason: 'expired' } });
    expect(await runStatus(runId)).toBe('queued');
    expect((await resumeJobs(runId)).map((job) => job.id)).toEqual([`${runId}-resume-${id}`]);
    expect(await factKinds(id)).toEqual(['approval.requested', 'approval.expired']);
  });

  it('a decision racing the expiry: exactly one outcome per approval, one fact, one resume', async () => {
    const member = apiClient(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'racer', role: 'member' })).body.token);
    const parked = await Promise.all(Array.from({ length: 12 }, () => park(2_500)));
    await waitFor(async () => (await Promise.all(parked.map(({ id }) => expiries.getJob(id)))).every(Boolean), { what: 'the expiry jobs scheduled', timeoutMs: 30_000 });
    // Decide each approval around its expiry: some before, some after the job fires.
    const due = Date.now() + 2_500;
    const answers = await Promise.all(
      parked.map(async ({ id }, i) => {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now() - 300 + i * 50)));
        return member('POST', `${ws}/approvals/${id}/decision`, { decision: 'approve' });
      }),
    );
    const ids = parked.map(({ id }) => id);
    await waitFor(async () => (await pg.query(`SELECT count(*)::int AS n FROM approvals WHERE id = ANY($1) AND status = 'pending'`, [ids])).rows[0].n === 0, {
      what: 'every approval closed',
      timeoutMs: 30_000,
    });
    for (const [i, { runId, id }] of parked.entries()) {
      const row = await approvalRow(id);
      const answer = answers[i]!;
      if (answer.status === 200) expect(row.status).toBe('approved');
      else expect({ status: answer.status, code: answer.body.error.code, recorded: row.status }).toEqual({ status: 409, code: 'APPROVAL_ALREADY_DECIDED', recorded: 'expired' });
      expect(await factKinds(id)).toEqual(['approval.requested', row.status === 'approved' ? 'approval.decided' : 'approval.expired']);
      await waitFor(async () => (await resumeJobs(runId)).length === 1, { what: `one resume of ${runId}` });
      expect(await runStatus(runId)).toBe('queued');
    }
  });

  it('holds a decided run while the workspace is paused and resumes it once unpaused', async () => {
    const member = apiClient(platform.gatewayUrl, (await admin('POST', `${ws}/tokens`, { name: 'pauser', role: 'member' })).body.token);
    const { runId, id } = await park(3_600_000);
    await admin('PUT', `${ws}/settings`, { agentsPaused: true });
    expect((await member('POST', `${ws}/approvals/${id}/decision`, { decision: 'deny', note: 'not now' })).status).toBe(200);
    expect(await runStatus(runId)).toBe('awaiting_approval');
    await admin('PUT', `${ws}/settings`, { agentsPaused: false });
    await waitFor(async () => (await runStatus(runId)) === 'queued', { what: 'the run resumed after the unpause', timeoutMs: 30_000 });
    // The job is added once the resume is committed: it follows the status.
    await waitFor(async () => (await resumeJobs(runId)).length > 0, { what: 'the resume job' });
    expect(await resumeJobs(runId)).toHaveLength(1);
  });

  it('serves its metrics, stops on SIGTERM with exit 0, and after a restart expires what came due while it was down', async () => {
    const healthPort = /"healthPort":(\d+)[^\n]*approvals started/.exec(platform.approvals!.output())?.[1];
    const metrics = await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text();
    expect(metrics).toContain('switchyard_approvals_expired_total');
    expect(await platform.approvals!.stop('SIGTERM')).toBe(0);

    // While it is down: a request whose fact waits on `facts`, one whose job was lost (no fact at all),
    // and a pending approval of a run that was cancelled.
    const waiting = await park(1_500);
    const lostRun = await insertParkedRun(pg, { workspaceId: acmeId, agentId });
    const lost = await insertApproval(pg, { workspaceId: acmeId, runId: lostRun, agentId, expiresAt: new Date(Date.now() - 1_000) });
    const cancelledRun = await insertParkedRun(pg, { workspaceId: acmeId, agentId, status: 'cancelled' });
    const orphan = await insertApproval(pg, { workspaceId: acmeId, runId: cancelledRun, agentId });
    await platform.factsRecorded();

    await platform.startApprovals({ APPROVALS_SWEEP_INTERVAL_MS: '3600000' });
    await waitFor(async () => (await approvalRow(lost)).status === 'expired', { what: 'the lost one expired by the start-up sweep', timeoutMs: 30_000 });
    await waitFor(async () => (await approvalRow(waiting.id)).status === 'expired', { what: 'the waiting one expired by its job', timeoutMs: 30_000 });
    await waitFor(async () => (await approvalRow(orphan)).status === 'denied', { what: 'the orphan closed', timeoutMs: 30_000 });
    expect(await approvalRow(orphan)).toEqual({ status: 'denied', decided_by: { type: 'system', reason: 'run_stopped' } });
    for (const runId of [lostRun, waiting.runId]) expect(await runStatus(runId)).toBe('queued');
    expect(await factKinds(lost)).toEqual(['approval.expired']);
  });

  it('three expiries of one approval at once (the service racing too): one wins, one fact, one resume', async () => {
    const { runId, id } = await park(-1_000);
    const pool = new SqlPool({ databaseUrl: platform.db.url, poolMax: 4 });
    try {
      const racing = new ApprovalStore(pool, pool);
      const results = await Promise.all([racing.expire(id, 't1'), racing.expire(id, 't2'), racing.expire(id, 't3')]);
      const won = results.filter((result) => result !== null);
      expect(won.length).toBeLessThanOrEqual(1);
      await waitFor(async () => (await approvalRow(id)).status === 'expired');
      expect(await factKinds(id)).toEqual(['approval.requested', 'approval.expired']);
      expect(await runStatus(runId)).toBe('queued');
      if (won.length === 1) {
        // This test's call won: it resumed the run (and, having no queue, added no job).
        expect(won[0]!.resumed).toEqual({ runId, workspaceId: acmeId, agentId });
        expect(await resumeJobs(runId)).toEqual([]);
      } else {
        await waitFor(async () => (await resumeJobs(runId)).length === 1, { what: "the service's one resume job" });
      }
    } finally {
      await pool.$disconnect();
    }
  });
});
