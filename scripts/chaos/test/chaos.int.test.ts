import { runChaosCommand } from './run-chaos-command';

/**
 * The short chaos runs CI affords (docs/chaos.md): what `npm run chaos` runs,
 * at 100 facts/s for 30 s, with two replicas of each service, killed under
 * load. Each must exit 0: every check of its report passed; the report is in
 * the failure message. Both runs live in this one file so that they run one
 * after the other: two meshes of two replicas each at once would need more
 * PostgreSQL connections than a default server allows (100).
 */
jest.setTimeout(300_000);

const SHORT = ['--rate', '100', '--duration', '30', '--quiesce-timeout', '120'];

describe('npm run chaos (short)', () => {
  it('passes every check under kills of each kind', async () => {
    expect(await runChaosCommand([...SHORT, '--kills', 'gateway,event-log:0,matcher:1,runner:0,redis,postgres'])).toEqual({ exit: 0, report: expect.stringContaining('chaos: every check passed') });
  });
});

/**
 * Issue 37 §5 (decision 0061): the same short run on a Redis Cluster of three
 * masters the harness starts itself (`--redis cluster`). Every key of the
 * platform and of BullMQ is under the prefix's hash tag, so a CROSSSLOT error
 * anywhere would fail a service; the `redis` kill SIGKILLs and restarts the
 * master holding that slot under load. Every check must pass: no
 * acknowledged fact lost, one run per (agent, fact), no stuck run.
 */
describe('npm run chaos on a Redis Cluster (short)', () => {
  it('passes every check across a kill of each service and of the master holding the keys', async () => {
    const { exit, report } = await runChaosCommand(['--redis', 'cluster', ...SHORT, '--kills', 'gateway,event-log:0,matcher:1,runner:0,redis']);
    expect({ exit, report }).toEqual({ exit: 0, report: expect.stringContaining('chaos: every check passed') });
    expect(report).toContain('chaos: Redis Cluster on redis-cluster://');
  });
});
