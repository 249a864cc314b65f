import type { ActivationJob } from '@switchyard/contracts';
import { RunWaker, type ActivationTransport } from '../src';

/** The one enqueuer of activation jobs (issue 33 §4): job ids, and what a lost wake does for each kind of change. */
describe('RunWaker', () => {
  const run = { runId: 'r1', workspaceId: 'w1', agentId: 'a1' };
  const added: Array<{ name: string; data: ActivationJob; opts: { jobId: string } }> = [];
  const warnings: object[] = [];
  const log = { warn: (data: object) => void warnings.push(data) };
  const working: ActivationTransport = { addBulk: async (jobs) => void added.push(...jobs) };
  const down: ActivationTransport = { addBulk: async () => Promise.reject(new Error('redis down')) };

  beforeEach(() => {
    added.length = 0;
    warnings.length = 0;
  });

  it('wakes a new run with a job named by the run, a resume with one of its own per resume', async () => {
    const waker = new RunWaker(working, log);
    await waker.wake([run]);
    await expect(waker.wakeOrLeaveToSweep([run], 'approval-9')).resolves.toBe(true);
    expect(added).toEqual([
      { name: 'run', data: { schemaVersion: 1, ...run }, opts: { jobId: 'r1' } },
      { name: 'resume', data: { schemaVersion: 1, ...run }, opts: { jobId: 'r1-resume-approval-9' } },
    ]);
    await waker.wake([]);
    expect(added).toHaveLength(2);
  });

  it('rejects a lost wake of new runs; leaves a lost wake of a committed change to the sweep, logged', async () => {
    const waker = new RunWaker(down, log);
    await expect(waker.wake([run])).rejects.toThrow('redis down');
    await expect(waker.wakeOrLeaveToSweep([run], 'k')).resolves.toBe(false);
    expect(warnings).toEqual([expect.objectContaining({ runs: ['r1'] })]);
  });
});
