import { createLogger } from '@switchyard/logging';
import type { AgentLoopOptions } from '../src/loop/loop-options';
import { retryingRedisBlips } from '../src/loop/redis-blips';
import type { RunSession } from '../src/loop/run-session';

/** The error ioredis raises once a command's retries are spent while Redis is down. */
const redisDown = () => Object.assign(new Error('Reached the max retries per request limit (which is 2). Refer to "maxRetriesPerRequest" option for details.'), { name: 'MaxRetriesPerRequestError' });

/** The parts of a session and of the loop's options that the retry reads. */
const sessionOf = (maxDurationMs: number | undefined, signal = new AbortController().signal) =>
  ({
    run: { id: 'run-1', spec: { budget: { maxDurationMs } } },
    context: { signal },
    recorder: { state: { tally: { ranMs: 0 } } },
    ranSince: performance.now(),
  }) as unknown as RunSession;
const options = { log: createLogger({ service: 'test', level: 'silent' }) } as unknown as AgentLoopOptions;

/** Decision 0051: a step boundary is tried again while Redis is unreachable, within the run's duration limit. */
describe('retryingRedisBlips', () => {
  it('tries again while Redis is unreachable and returns what the try that reached it got', async () => {
    let tries = 0;
    const result = await retryingRedisBlips(sessionOf(60_000), options, async () => {
      tries += 1;
      if (tries < 3) throw redisDown();
      return 'drained';
    });
    expect([result, tries]).toEqual(['drained', 3]);
  });

  it('gives up at the run duration limit, and at once on any other error or an aborted run', async () => {
    let tries = 0;
    const started = performance.now();
    await expect(retryingRedisBlips(sessionOf(1000), options, async () => ((tries += 1), Promise.reject(redisDown())))).rejects.toThrow(/max retries/);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(tries).toBeGreaterThan(1);
    let other = 0;
    await expect(retryingRedisBlips(sessionOf(60_000), options, async () => ((other += 1), Promise.reject(new Error('duplicate key'))))).rejects.toThrow('duplicate key');
    expect(other).toBe(1);
    const aborted = new AbortController();
    aborted.abort('lease lost');
    let lost = 0;
    await expect(retryingRedisBlips(sessionOf(60_000, aborted.signal), options, async () => ((lost += 1), Promise.reject(redisDown())))).rejects.toThrow(/max retries/);
    expect(lost).toBe(1);
  });
});
