import type { FactPublishedMessage } from '@switchyard/contracts';
import type { ClosedApproval, ResumedRun } from '@switchyard/runs';
import { createLogger } from '@switchyard/logging';
import { ApprovalKeeper } from '../src/approval-keeper';
import type { ApprovalRecords } from '../src/ports';

const log = createLogger({ service: 'test', level: 'silent' });
const WS = '0190d0b4-9c1e-7cc2-8a3e-4f2a9d1b6c70';
const run: ResumedRun = { runId: '0190d0b4-9c1e-7cc2-8a3e-4f2a9d1b6c71', workspaceId: WS, agentId: '0190d0b4-9c1e-7cc2-8a3e-4f2a9d1b6c72' };
const waiting: ResumedRun = { runId: '0190d0b4-9c1e-7cc2-8a3e-4f2a9d1b6c73', workspaceId: WS, agentId: '0190d0b4-9c1e-7cc2-8a3e-4f2a9d1b6c72' };

/** A published fact of `kind` with `payload`, as the event-log puts it on `facts`. */
function published(kind: string, subjectId: string, payload: Record<string, unknown>): FactPublishedMessage {
  return {
    schemaVersion: 1,
    id: `m-${subjectId}`,
    type: 'fact_published',
    occurredAt: new Date().toISOString(),
    correlationId: 'c',
    workspaceId: WS,
    fact: { id: `0190d0b4-9c1e-7cc2-8a3e-${subjectId.padStart(12, '0')}`, seq: 1, workspace: 'acme', kind, subject: { type: 'approval', id: subjectId }, payload, ts: new Date().toISOString() },
  } as FactPublishedMessage;
}

/**
 * The keeper's decisions on fakes of its ports (its stores are tested for
 * real in approvals-service.int.test.ts): which facts schedule what, which
 * resume which runs, and that a failed wake-up does not undo a resume.
 */
function fakes(options: { expire?: ClosedApproval | null; ready?: ResumedRun[]; held?: ResumedRun[]; resumeFails?: boolean } = {}) {
  const scheduled: Array<{ approvalId: string; expiresAt: Date }> = [];
  const resumed: Array<{ runs: readonly ResumedRun[]; key: string }> = [];
  const readyCalls: Array<string | null> = [];
  const heldCalls: Array<string | null> = [];
  const records: ApprovalRecords = {
    expire: async () => options.expire ?? null,
    dueForExpiry: async () => ['a1', 'a2'],
    resumeReady: async (workspaceId) => {
      readyCalls.push(workspaceId);
      return options.ready ?? [];
    },
    closeOrphaned: async () => 0,
  };
  const keeper = new ApprovalKeeper({
    records,
    waits: {
      resumeHeld: async (workspaceId) => {
        heldCalls.push(workspaceId);
        return options.held ?? [];
      },
    },
    expiries: { schedule: async (items) => void scheduled.push(...items) },
    resumer: {
      // As RunWaker.wakeOrLeaveToSweep: a lost wake is false, never a rejection.
      resume: async (runs, key) => {
        if (options.resumeFails) return false;
        resumed.push({ runs, key });
        return true;
      },
    },
    log,
    metrics: { expired: () => undefined, resumed: () => undefined },
  });
  return { keeper, scheduled, resumed, readyCalls, heldCalls };
}

describe('ApprovalKeeper', () => {
  it('schedules the expiry of pending requests only, and resumes a workspace once unpaused', async () => {
    const { keeper, scheduled, resumed, readyCalls, heldCalls } = fakes({ ready: [run], held: [waiting] });
    const expiresAt = '2027-01-01T00:00:00.000Z';
    await keeper.handleFacts([
      published('approval.requested', 'p1', { status: 'pending', expiresAt }),
      published('approval.requested', 'p2', { status: 'denied', expiresAt }),
      published('approval.requested', 'p3', { status: 'pending' }),
      published('workspace.settings_changed', 'w1', { agentsPaused: true, approvals: 'enabled' }),
      published('workspace.settings_changed', 'w2', { agentsPaused: false, approvals: 'enabled' }),
      published('approval.decided', 'p4', { status: 'approved' }),
    ]);
    expect(scheduled).toEqual([{ approvalId: 'p1', expiresAt: new Date(expiresAt) }]);
    expect(readyCalls).toEqual([WS]);
    // The runs parked on a wait the kill switch held resume with the same unpause (decision 0055).
    expect(heldCalls).toEqual([WS]);
    expect(resumed).toEqual([
      { runs: [run], key: expect.stringMatching(/^0190d0b4-/) },
      { runs: [waiting], key: expect.stringMatching(/^0190d0b4-/) },
    ]);
  });

  it('wakes the run an expiry resumed, keyed by the approval; nothing when the decision came first', async () => {
    const expiring = fakes({ expire: { approval: {} as ClosedApproval['approval'], resumed: run } });
    await expiring.keeper.expire('a9');
    expect(expiring.resumed).toEqual([{ runs: [run], key: 'a9' }]);
    const decided = fakes({ expire: null });
    await decided.keeper.expire('a9');
    expect(decided.resumed).toEqual([]);
  });

  it('does not fail an expiry whose wake-up could not be added (the runner sweep claims the lane)', async () => {
    const { keeper } = fakes({ expire: { approval: {} as ClosedApproval['approval'], resumed: run }, resumeFails: true });
    await expect(keeper.expire('a9')).resolves.toBeUndefined();
  });

  it('sweeps: expires what is due and resumes ready runs of every workspace', async () => {
    const { keeper, resumed, readyCalls, heldCalls } = fakes({ expire: null, ready: [run], held: [waiting] });
    await keeper.sweep();
    expect(readyCalls).toEqual([null]);
    expect(heldCalls).toEqual([null]);
    expect(resumed).toEqual([
      { runs: [run], key: expect.stringMatching(/^sweep-/) },
      { runs: [waiting], key: expect.stringMatching(/^sweep-/) },
    ]);
  });
});
