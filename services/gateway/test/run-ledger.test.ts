import { AppError, ErrorCode } from '@switchyard/contracts';
import { createLogger } from '@switchyard/logging';
import { statusOf } from '../src/http/errors';
import type { AgentRecord } from '../src/agent-ports';
import type { Principal } from '../src/auth-ports';
import type { NewRun, RunRecord } from '../src/run-ports';
import { RunLedger, type RunLedgerDeps } from '../src/run-ledger';

const principal: Principal = {
  tokenId: '0190f0f0-0000-7000-8000-0000000000aa',
  userId: '0190f0f0-0000-7000-8000-0000000000bb',
  workspaceId: '0190f0f0-0000-7000-8000-0000000000cc',
  workspaceSlug: 'acme',
  role: 'member',
};
const agent = { id: '0190f0f0-0000-7000-8000-0000000000dd', version: 3, enabled: true } as AgentRecord;

/**
 * In-memory ports for the failure paths the integration test cannot reach
 * with real processes: Redis refusing the job after the run was committed.
 * Only the methods RunLedger calls are implemented. (The runs' facts are
 * written by the runs trigger with each change: services/event-log/test/fact-outbox.int.test.ts.)
 */
function fakes(options: { enqueue?: () => Promise<void> } = {}) {
  const rows = new Map<string, RunRecord>();
  const enqueued: string[] = [];
  const deps: RunLedgerDeps = {
    maxCausationDepth: 5,
    runs: {
      get: async (_ws, id) => rows.get(id) ?? null,
      create: async (run: NewRun) => {
        const record: RunRecord = { ...run, status: 'queued', reason: null, outcome: null, error: null, stopRequested: false, queuedAt: new Date(), startedAt: null, endedAt: null };
        rows.set(run.id, record);
        return record;
      },
      stop: async () => ({ ok: false, reason: 'not_found' }),
      activeDescendants: async () => [],
      fail: async (_ws, id, reason, error) => {
        const row = rows.get(id);
        if (row?.status !== 'queued') return null;
        const failed: RunRecord = { ...row, status: 'failed', reason, error, endedAt: new Date() };
        rows.set(id, failed);
        return failed;
      },
    },
    agents: { get: async (_ws, id) => (id === agent.id ? agent : null) },
    settings: { get: async () => ({ agentsPaused: false, approvals: 'enabled' as const, retention: { factsDays: 90, transcriptsDays: 30 } }) },
    activations: {
      wake: options.enqueue ?? (async (runs) => void enqueued.push(...runs.map((run) => run.runId))),
      wakeOrLeaveToSweep: async () => true,
    },
    log: createLogger({ service: 'test', level: 'silent' }),
  };
  return { ledger: new RunLedger(deps), rows, enqueued };
}

const ctx = { principal, correlationId: 'req-1' };

describe('RunLedger', () => {
  it('fails a run whose job Redis refused and answers 503', async () => {
    const { ledger, rows } = fakes({ enqueue: () => Promise.reject(new Error('Stream isn\'t writeable')) });
    const error = await ledger.start(ctx, agent.id, 'hello').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(ErrorCode.UNAVAILABLE);
    expect(statusOf((error as AppError).code)).toBe(503);
    const [run] = [...rows.values()];
    expect(run).toMatchObject({ status: 'failed', reason: 'enqueue_failed', error: { code: 'UNAVAILABLE' }, agentVersion: 3 });
  });

  it('retries a manual run with a retry origin carrying its input (issue 13: a retry of the retry too), and the same causation', async () => {
    const { ledger, rows } = fakes();
    const first = await ledger.start(ctx, agent.id, 'hello');
    rows.set(first.id, { ...first, status: 'completed', causedBy: { runId: 'r0', agentId: 'a0', depth: 2 }, depth: 2 });
    const retried = await ledger.retry(ctx, first.id);
    expect(retried.origin).toEqual({ type: 'retry', retryOf: first.id, userId: principal.userId, input: 'hello' });
    expect(retried).toMatchObject({ eventId: null, depth: 2, causedBy: { runId: 'r0', agentId: 'a0', depth: 2 } });
    rows.set(retried.id, { ...retried, status: 'failed' });
    expect((await ledger.retry(ctx, retried.id)).origin).toEqual({ type: 'retry', retryOf: retried.id, userId: principal.userId, input: 'hello' });
  });
});
