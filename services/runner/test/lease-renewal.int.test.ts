import { Client } from 'pg';
import { apiClient, startTestPlatform, waitFor, type TestPlatform } from '@switchyard/testing';
import { scripted } from './runner-test-helpers';

/**
 * A run's lease is renewed on a connection of the runner's own, not in the
 * pool its runs' statements share: a runner whose every pooled connection
 * waits (here on a lock, in production behind a hundred runs' statements)
 * still keeps its leases, so another runner's sweep does not end its run
 * `runner_lost` (the defect bench:approvals found under load).
 */
jest.setTimeout(120_000);

const LEASE_MS = 900;

interface RunRow {
  status: string;
  reason: string | null;
  lease_until: Date | null;
}

describe('lease renewal', () => {
  let platform: TestPlatform;
  let pg: Client;
  let blocker: Client | undefined;
  afterEach(async () => {
    await blocker?.end().catch(() => undefined);
    await pg?.end();
    await platform?.stop();
  });

  it('a runner whose pool waits on a lock keeps renewing its run; the run completes, not runner_lost', async () => {
    platform = await startTestPlatform({ matcher: true, env: { CLAIM_IDLE_MS: '1000' } });
    pg = new Client({ connectionString: platform.db.url });
    await pg.connect();
    // One pooled connection: the run's first transcript write, blocked below, holds all of it.
    await platform.startRunner({ DATABASE_POOL_MAX: '1', RUNNER_LEASE_MS: String(LEASE_MS), RUNNER_SWEEP_INTERVAL_MS: '300' });
    const token = await platform.createWorkspace('lease');
    const api = apiClient(platform.gatewayUrl, token);
    const agent = (await api('POST', '/v1/workspaces/lease/agents', scripted('leased', 'lease.go', 3, 50))).body.id as string;

    blocker = new Client({ connectionString: platform.db.url });
    await blocker.connect();
    await blocker.query('BEGIN');
    // Blocks inserts, not reads: the claim and the set-up go through; the run's first write waits.
    await blocker.query('LOCK TABLE transcript_entries IN SHARE ROW EXCLUSIVE MODE');
    expect((await api('POST', '/v1/workspaces/lease/events', { kind: 'lease.go', subject: { type: 't', id: '1' } })).status).toBe(202);
    const runOf = async () => (await pg.query<RunRow>('SELECT status::text, reason, lease_until FROM runs WHERE agent_id = $1', [agent])).rows[0];
    await waitFor(
      async () =>
        (await runOf())?.status === 'running' &&
        Number((await pg.query(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'runner' AND wait_event_type = 'Lock'`)).rows[0].count) > 0,
      { timeoutMs: 30_000, intervalMs: 20, what: 'the run running, its pooled connection waiting on the lock' },
    );
    const blockedAt = Date.now();
    // A healthy runner whose sweep ends any run whose lease lapsed.
    await platform.startRunner({ RUNNER_LEASE_MS: String(LEASE_MS), RUNNER_SWEEP_INTERVAL_MS: '300' });

    // Renewed while blocked, past three leases from when the pool stopped answering.
    const renewed = await waitFor(
      async () => {
        const run = await runOf();
        return run && (run.status !== 'running' || run.lease_until!.getTime() > blockedAt + 3 * LEASE_MS) ? run : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 50, what: 'the lease renewed past three lease lengths' },
    );
    expect(renewed).toMatchObject({ status: 'running' });

    await blocker.query('COMMIT');
    const ended = await waitFor(async () => {
      const run = await runOf();
      return run && run.status !== 'running' ? run : undefined;
    }, { timeoutMs: 30_000, intervalMs: 50, what: 'the run ended' });
    expect(ended).toMatchObject({ status: 'completed', reason: null });
  });
});
