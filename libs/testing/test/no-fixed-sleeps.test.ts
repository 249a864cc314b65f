import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Tests wait on events, not on the clock (issue 33): a test waits for the
 * fact, row or status it needs through `waitFor` (libs/testing), and proves
 * an absence by waiting for a sign that the system went past the point. This
 * fails on a fixed sleep of a literal number of milliseconds in test code: a
 * test file, a file under a `test/` folder, or libs/testing itself.
 */
const ROOT = path.resolve(__dirname, '../../..');
const SEARCHED = ['libs', 'services', 'scripts', 'bench'];

/**
 * Code that sleeps on purpose, with why. Not a wait: a fixture whose slowness
 * is the behaviour under test.
 */
const ALLOWED: Record<string, string> = {
  'libs/runtime/test/fixtures/slow-start-service.ts': 'a service that is slow to start, for the start-up deadline tests',
};

/** A number of milliseconds written as literals: `300`, `1_500`, `2 * 1000`, `done ? 50 : 5`. */
const LITERAL = String.raw`(?:[\w.]+\s*\?\s*)?\d[\d_]*(?:\s*[*+]\s*\d[\d_]*)*(?:\s*:\s*\d[\d_]*)?`;
const SLEEPS = [
  // new Promise((resolve) => setTimeout(resolve, 300))
  new RegExp(String.raw`setTimeout\(\s*(?:resolve|res|r|done|next|ok|wake)\s*,\s*${LITERAL}\s*\)`),
  // await sleep(300), await delay(300), setTimeout(300) from node:timers/promises
  new RegExp(String.raw`(?<![\w.])(?:sleep|delay|wait|pause)\(\s*${LITERAL}\s*[,)]`),
  new RegExp(String.raw`await\s+setTimeout\(\s*${LITERAL}\s*[,)]`),
];

const isTestCode = (file: string) => /\.test\.m?ts$/.test(file) || file.split(path.sep).includes('test') || file.startsWith(path.join('libs', 'testing', 'src'));

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(relative);
    else if (/\.(m?ts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield relative;
  }
}

/** `file:line: text` of every literal-millisecond sleep in `text`. */
export function fixedSleeps(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) => (SLEEPS.some((sleep) => sleep.test(line)) ? [`${file}:${index + 1}: ${line.trim()}`] : []));
}

describe('tests wait on events, not on the clock', () => {
  it('finds the sleeps it is meant to find, and not a deadline or a poll', () => {
    const sleep = (ms: string) => `await new Promise((resolve) => setTimeout(resolve, ${ms}));`;
    for (const ms of ['300', '1_500', '4_500', 'seconds ? 50 : 5', '2 * 1000']) expect(fixedSleeps('a.ts', sleep(ms))).toHaveLength(1);
    expect(fixedSleeps('a.ts', 'for (;;) await new Promise((r) => setTimeout(r, 5));')).toHaveLength(1);
    expect(fixedSleeps('a.ts', 'await sleep(200);')).toHaveLength(1);
    expect(fixedSleeps('a.ts', "await setTimeout(100, 'x');")).toHaveLength(1);
    // A deadline, a wait computed from a row, the helper's own poll interval: not fixed sleeps.
    expect(fixedSleeps('a.ts', "setTimeout(() => reject(new Error('stream still open')), 10_000)")).toEqual([]);
    expect(fixedSleeps('a.ts', sleep('Math.max(0, due - Date.now())'))).toEqual([]);
    expect(fixedSleeps('a.ts', sleep('options.intervalMs ?? 50'))).toEqual([]);
    expect(fixedSleeps('a.ts', 'await waitFor(probe, { timeoutMs: 5000 });')).toEqual([]);
  });

  it('no test file sleeps a literal number of milliseconds: it waits for the fact, row or status through waitFor', () => {
    const self = path.relative(ROOT, __filename);
    const found = SEARCHED.flatMap((dir) => [...sourceFiles(dir)])
      .filter((file) => isTestCode(file) && file !== self && !(file in ALLOWED))
      .flatMap((file) => fixedSleeps(file, readFileSync(path.join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
  });
});
