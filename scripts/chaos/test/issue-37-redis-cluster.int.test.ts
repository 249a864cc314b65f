import { runChaosCommand } from './run-chaos-command';

/**
 * Issue 37 §5 (decision 0061): the short chaos run on a Redis Cluster of three
 * masters the harness starts itself (`--redis cluster`). Every key of the
 * platform and of BullMQ is under the prefix's hash tag, so a CROSSSLOT error
 * anywhere would fail a service; the `redis` kill SIGKILLs and restarts the
 * master holding that slot under load. Every check must pass: no
 * acknowledged fact lost, one run per (agent, fact), no stuck run.
 */
jest.setTimeout(300_000);

const SHORT = ['--redis', 'cluster', '--rate', '100', '--duration', '30', '--kills', 'gateway,event-log:0,matcher:1,runner:0,redis', '--quiesce-timeout', '120'];

describe('npm run chaos on a Redis Cluster (short)', () => {
  it('passes every check across a kill of each service and of the master holding the keys', async () => {
    const { exit, report } = await runChaosCommand(SHORT);
    expect({ exit, report }).toEqual({ exit: 0, report: expect.stringContaining('chaos: every check passed') });
    expect(report).toContain('chaos: Redis Cluster on redis-cluster://');
  });
});
