import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestPlatform, waitFor, type TestPlatform, nodeArgsFor } from '@switchyard/testing';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');

/**
 * Issue 13: the matcher's dead letters (its group on `facts`) are recorded in
 * PostgreSQL like the event-log's, counted on the matcher's own /metrics and
 * listed by the admin CLI under `facts`.
 */
describe('issue 13: matcher dead letters', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ matcher: true });
  });
  afterAll(() => platform.stop());

  it('records an entry of `facts` it cannot decode, counts it on /metrics and lists it', async () => {
    const facts = `${platform.redis.prefix}:facts`;
    await platform.redis.redis.xadd(facts, '*', 'm', '{"type":"fact_published"');
    const port = /"healthPort":(\d+)/.exec(platform.matcher!.output())![1];
    const gauge = `switchyard_dead_letters{stream="${facts}",group="matcher"}`;
    await waitFor(async () => {
      const text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());
      return text.split('\n').some((line) => line === `${gauge} 1`);
    }, { what: 'the gauge at 1' });
    const { stdout } = await run(process.execPath, [...nodeArgsFor('scripts/admin.ts'), 'dead-letters', 'list', 'facts'], {
      cwd: ROOT,
      env: { ...process.env, ...platform.env },
    });
    // The matcher's one group on `facts` (its batches fold the delegation returns too) dead-letters it once.
    const letters = stdout.trim().split('\n').slice(0, -1).map((line) => JSON.parse(line));
    expect(letters.map((letter: { group: string }) => letter.group)).toEqual(['matcher']);
    const letter = letters.find((candidate: { group: string }) => candidate.group === 'matcher');
    expect(letter).toMatchObject({ stream: facts, group: 'matcher', deliveries: 1, message: '{"type":"fact_published"' });
    expect(((await platform.redis.redis.xpending(facts, 'matcher')) as [number])[0]).toBe(0);
  });
});
