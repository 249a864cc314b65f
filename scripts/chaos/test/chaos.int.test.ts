import { runChaosCommand } from './run-chaos-command';

/**
 * The short chaos run CI affords (docs/chaos.md): what `npm run chaos` runs,
 * at 100 facts/s for 30 s, with one replica of each service, the gateway,
 * Redis and PostgreSQL's connections killed under load. It must exit 0:
 * every check of its report passed. The report is in the failure message.
 */
jest.setTimeout(300_000);

const SHORT = ['--rate', '100', '--duration', '30', '--kills', 'gateway,event-log:0,matcher:1,runner:0,redis,postgres', '--quiesce-timeout', '120'];

describe('npm run chaos (short)', () => {
  it('passes every check under kills of each kind', async () => {
    expect(await runChaosCommand(SHORT)).toEqual({ exit: 0, report: expect.stringContaining('chaos: every check passed') });
  });
});
