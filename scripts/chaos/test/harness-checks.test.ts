import { checkKills, checkNoCrash, checkNoDeadLetters, checkQuiescence } from '../harness-checks';
import { planKills } from '../kill-plan';
import { parseChaosOptions } from '../options';

/** The harness's own checks and plan: each check fails on its violation; the options are bounded. */
describe('harness checks', () => {
  const plan = planKills(['gateway', 'redis', 'postgres'], 10_000);

  it('spreads the kills over 10 % to 80 % of the load', () => {
    expect(plan.map((k) => k.atMs)).toEqual([1000, 4500, 8000]);
    expect(planKills([], 10_000)).toEqual([]);
  });

  it('kills: fails on a kill not done and on one whose target did not come back; a refused PostgreSQL kill is skipped', () => {
    const done = plan.map((k) => ({ target: k.target, at: k.atMs, backAt: k.atMs + 1, ok: true }));
    expect(checkKills(plan, done).pass).toBe(true);
    expect(checkKills(plan, done.slice(0, 2)).pass).toBe(false);
    expect(checkKills(plan, [...done.slice(0, 2), { target: 'postgres', at: 1, ok: false, note: 'failed: boom' }]).pass).toBe(false);
    expect(checkKills(plan, [...done.slice(0, 2), { target: 'postgres', at: 1, ok: false, note: 'skipped: must be superuser' }]).pass).toBe(true);
  });

  it('quiescence, crashes and dead letters: each fails on its violation', () => {
    expect(checkQuiescence(1200, 60_000).pass).toBe(true);
    expect(checkQuiescence(undefined, 60_000).pass).toBe(false);
    expect(checkNoCrash([]).pass).toBe(true);
    expect(checkNoCrash([{ slot: 'runner:0', at: 1, exit: 1, tail: '' }]).pass).toBe(false);
    expect(checkNoDeadLetters(0).pass).toBe(true);
    expect(checkNoDeadLetters(2).pass).toBe(false);
  });

  it('options: defaults are 300 facts/s for 2 minutes with every kill; out-of-bounds values are refused', () => {
    expect(parseChaosOptions([])).toMatchObject({ rate: 300, duration: 120, keep: false, kills: ['gateway', 'event-log:0', 'event-log:1', 'matcher:0', 'matcher:1', 'runner:0', 'runner:1', 'redis', 'postgres'] });
    expect(parseChaosOptions(['--rate', '100', '--duration', '30', '--kills', 'runner:0,redis', '--keep'])).toMatchObject({ rate: 100, duration: 30, kills: ['runner:0', 'redis'], keep: true });
    expect(parseChaosOptions(['--kills', 'none']).kills).toEqual([]);
    expect(() => parseChaosOptions(['--rate', '100000'])).toThrow();
    expect(() => parseChaosOptions(['--duration', '3600'])).toThrow();
    expect(() => parseChaosOptions(['--kills', 'matcher:2'])).toThrow();
    expect(() => parseChaosOptions(['--kills', 'redis,redis'])).toThrow();
    expect(() => parseChaosOptions(['--url', 'http://example.com'])).toThrow();
  });
});
