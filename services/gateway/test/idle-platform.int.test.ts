import { processWakeups, startTestPlatform, type TestPlatform } from '@switchyard/testing';

const wakeups = (pid: number): number => processWakeups(pid) ?? 0;

/**
 * An idle platform costs next to nothing: no service polls on a short timer.
 * Counted as wake-ups (voluntary context switches of every thread, from
 * /proc), not as time: a wake-up from idle is what costs CPU on a virtual
 * machine, and its count does not depend on how loaded the machine is. What
 * may wake a service: the event-loop lag sampler (EVENT_LOOP_SAMPLE_MS, ten a
 * second), its blocking reads timing out (once a second each), its sweeps.
 * prom-client's default sampler, every 10 ms, is a hundred a second alone.
 */
const MAX_WAKEUPS_PER_SECOND = 30;

describe('an idle platform', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    // The deployed intervals, not the test platform's shorter ones.
    platform = await startTestPlatform({ matcher: true, approvals: true, runners: 1, env: { CLAIM_IDLE_MS: '30000', INGEST_TRIM_INTERVAL_MS: '5000' } });
    await platform.createWorkspace('idle');
  }, 120_000);
  afterAll(async () => platform?.stop());

  it('wakes each service a few times a second at most', async () => {
    // Past the start-up work: the workspace's facts relayed, stored and read by every group.
    await platform.settled();
    const services = { gateway: platform.gateway, 'event-log': platform.eventLogs[0]!, matcher: platform.matcher!, approvals: platform.approvals!, runner: platform.runners[0]! };
    const before = Object.fromEntries(Object.entries(services).map(([name, service]) => [name, wakeups(service.child.pid!)]));
    const seconds = 4;
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const perSecond = Object.fromEntries(Object.entries(services).map(([name, service]) => [name, Math.round((wakeups(service.child.pid!) - before[name]!) / seconds)]));
    expect(Object.entries(perSecond).filter(([, n]) => n > MAX_WAKEUPS_PER_SECOND)).toEqual([]);
  }, 60_000);
});
