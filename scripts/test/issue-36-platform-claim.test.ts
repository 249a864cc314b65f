import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { alreadyRunningMessage, claimPlatformFile, isStartProcess } from '../lib/platform-claim.cjs';
import { processAlive, readRecord, recordText, resolveOperatorEnv, writePlatformFile } from '../lib/platform-file.cjs';
import { deadPid } from './lib/operator-processes';
import { waitFor } from '@switchyard/testing';

/*
 * Issue 36: a second `npm start` deleted the running one's platform file. Now a start claims
 * the file first, exclusively: exactly one of any number of starts wins, even at the same
 * instant and even when they race to replace a stale claim; a live start's claim is never
 * rewritten or removed. The races run in real processes, each claiming at the same moment.
 */
const CLAIM = path.resolve(__dirname, '../lib/platform-claim.cjs');
const FILE_MODULE = path.resolve(__dirname, '../lib/platform-file.cjs');

/** A process that claims `file` at `at` (ms since the epoch), reports, and lives until told to exit. */
const CLAIMER = `
const { claimPlatformFile } = require(${JSON.stringify(CLAIM)});
const { processAlive } = require(${JSON.stringify(FILE_MODULE)});
const [file, at] = process.argv.slice(1);
setTimeout(async () => {
  const result = await claimPlatformFile(file, { pid: process.pid, gatewayUrl: 'http://127.0.0.1:1' }, { alive: processAlive });
  process.send(result);
  process.on('message', () => process.exit(0));
}, Math.max(0, Number(at) - Date.now()));
`;

interface Claimer {
  child: ChildProcess;
  result: Promise<{ ok: boolean; running?: { pid: number } }>;
}

function claimer(file: string, at: number): Claimer {
  const child = spawn(process.execPath, ['-e', CLAIMER, file, String(at)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return { child, result: new Promise((resolve) => child.once('message', resolve as (value: unknown) => void)) };
}

/** Runs `count` claimers of `file` at one instant, all alive until each has its answer. */
async function race(file: string, count: number) {
  // Far enough ahead for every process to have started (node boots in ~50 ms here, more under load).
  const at = Date.now() + 1500;
  const claimers = Array.from({ length: count }, () => claimer(file, at));
  try {
    const results = await Promise.all(claimers.map((c) => c.result));
    return { pids: claimers.map((c) => c.child.pid!), results, record: readRecord(file) };
  } finally {
    await Promise.all(claimers.map(({ child }) => new Promise((resolve) => (child.once('exit', resolve), child.connected ? child.send('exit') : child.kill()))));
  }
}

/** A live process whose command line names start.mjs, as a running `npm start`'s does. */
function fakeStart(): ChildProcess {
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'scripts/start.mjs'], { stdio: 'ignore' });
}

describe('claiming the platform file', () => {
  let dir: string;
  let file: string;
  const running: ChildProcess[] = [];
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'platform-claim-'));
    file = path.join(dir, 'platform.json');
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((child) => new Promise((resolve) => (child.once('exit', resolve), child.kill()))));
    rmSync(dir, { recursive: true, force: true });
  });
  jest.setTimeout(30_000);

  it('of 8 starts claiming at one instant, exactly one wins; the others name it', async () => {
    const { pids, results, record } = await race(file, 8);
    const winners = results.flatMap((result, index) => (result.ok ? [pids[index]] : []));
    expect(winners).toHaveLength(1);
    expect(record).toMatchObject({ pid: winners[0], state: 'starting', gatewayUrl: 'http://127.0.0.1:1' });
    for (const result of results.filter((r) => !r.ok)) expect(result.running).toMatchObject({ pid: winners[0] });
    expect(readdirSync(dir)).toEqual(['platform.json']);
  });

  it('of 8 starts finding a stale claim at one instant, exactly one takes it over', async () => {
    const stale = await deadPid();
    writeFileSync(file, recordText({ pid: stale, gatewayUrl: 'http://127.0.0.1:2', state: 'running', env: {} }));
    const { pids, results, record } = await race(file, 8);
    const winners = results.flatMap((result, index) => (result.ok ? [pids[index]] : []));
    expect(winners).toHaveLength(1);
    expect(record).toMatchObject({ pid: winners[0], state: 'starting' });
    for (const result of results.filter((r) => !r.ok)) expect(result.running).toMatchObject({ pid: winners[0] });
    expect(readdirSync(dir)).toEqual(['platform.json']);
  });

  it('keeps the claim of a start that took over the stale one between another start’s look and its own takeover', async () => {
    const [first, second, stale] = [1_000_001, 1_000_002, await deadPid()];
    writeFileSync(file, recordText({ pid: stale, gatewayUrl: 'http://127.0.0.1:2', state: 'running' }));
    let secondClaim: Promise<unknown> | undefined;
    // The first start has read the stale claim and asks whether its process lives: just then,
    // the second start runs its whole claim (it has no await on this path, so it runs here).
    const alive = (pid: number) => {
      if (pid === stale && !secondClaim) secondClaim = claimPlatformFile(file, { pid: second, gatewayUrl: 'http://127.0.0.1:5' }, { alive: (p) => p === first });
      return pid === first || pid === second;
    };
    const firstClaim = await claimPlatformFile(file, { pid: first, gatewayUrl: 'http://127.0.0.1:4' }, { alive });
    expect(await secondClaim).toEqual({ ok: true });
    expect(firstClaim).toEqual({ ok: false, running: expect.objectContaining({ pid: second }) });
    expect(readRecord(file)).toMatchObject({ pid: second, gatewayUrl: 'http://127.0.0.1:5' });
    expect(readdirSync(dir)).toEqual(['platform.json']);
  });

  it('refuses while a live start holds it, and changes nothing', async () => {
    const start = fakeStart();
    running.push(start);
    const text = recordText({ pid: start.pid!, gatewayUrl: 'http://127.0.0.1:8080', state: 'running', env: { DATABASE_URL: 'postgresql://x@h/db' } });
    writeFileSync(file, text);
    const result = await claimPlatformFile(file, { pid: process.pid, gatewayUrl: 'http://127.0.0.1:8080' });
    expect(result).toEqual({ ok: false, running: expect.objectContaining({ pid: start.pid, gatewayUrl: 'http://127.0.0.1:8080', state: 'running' }) });
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(readdirSync(dir)).toEqual(['platform.json']);
  });

  it.each([
    ['a dead process', async () => recordText({ pid: await deadPid(), gatewayUrl: 'http://127.0.0.1:2', state: 'running' })],
    ['this very process id (an earlier process had it)', async () => recordText({ pid: process.pid, gatewayUrl: 'http://127.0.0.1:2', state: 'starting' })],
    ['no process at all (not a record)', async () => '{"pid": "nope"'],
    ['nothing (an empty file)', async () => ''],
  ])('takes over a claim of %s', async (_what, content) => {
    writeFileSync(file, await content());
    expect(await claimPlatformFile(file, { pid: process.pid, gatewayUrl: 'http://127.0.0.1:3' })).toEqual({ ok: true });
    expect(readRecord(file)).toMatchObject({ pid: process.pid, gatewayUrl: 'http://127.0.0.1:3', state: 'starting' });
  });

  (process.platform === 'linux' ? it : it.skip)('takes over the claim of a live process that is not npm start (its id was reused)', async () => {
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const start = fakeStart();
    running.push(other, start);
    // Both have started their own programs (a child shows its parent's command line until then).
    await waitFor(async () => isStartProcess(start.pid!) && readFileSync(`/proc/${other.pid}/cmdline`, 'utf8').includes('setInterval'), { timeoutMs: 10_000, what: 'both processes started' });
    expect([isStartProcess(other.pid!), isStartProcess(start.pid!), processAlive(other.pid!)]).toEqual([false, true, true]);
    writeFileSync(file, recordText({ pid: other.pid!, gatewayUrl: 'http://127.0.0.1:2', state: 'running' }));
    expect(await claimPlatformFile(file, { pid: process.pid, gatewayUrl: 'http://127.0.0.1:3' })).toEqual({ ok: true });
  });

  it('stops, naming the file to remove, when a start died while it replaced a stale claim', async () => {
    const stale = recordText({ pid: await deadPid(), gatewayUrl: 'http://127.0.0.1:2', state: 'running' });
    writeFileSync(file, stale);
    writeFileSync(`${file}.takeover`, recordText({ pid: await deadPid(), gatewayUrl: 'http://127.0.0.1:2', state: 'starting' }));
    const result = await claimPlatformFile(file, { pid: process.pid, gatewayUrl: 'http://127.0.0.1:3' });
    expect(result).toEqual({ ok: false, reason: expect.stringContaining(`${file}.takeover was left by a start`) });
    expect(readFileSync(file, 'utf8')).toBe(stale);
  });

  it('is marked running with the servers once the gateway answers, keeping when it was claimed', async () => {
    await claimPlatformFile(file, { pid: process.pid, gatewayUrl: 'http://127.0.0.1:4' });
    const claimed = readRecord(file)!;
    // Still starting: the admin CLI waits for the banner rather than use a half-started platform.
    expect(resolveOperatorEnv({}, file)).toEqual({ ok: false, reason: expect.stringContaining('is still starting: wait for its banner') });
    writePlatformFile(file, { pid: process.pid, gatewayUrl: 'http://127.0.0.1:4', env: { DATABASE_URL: 'postgresql://a@b/c', REDIS_URL: 'redis://d:6379', PATH: '/bin' } });
    expect(readRecord(file)).toEqual({
      pid: process.pid,
      gatewayUrl: 'http://127.0.0.1:4',
      state: 'running',
      env: { DATABASE_URL: 'postgresql://a@b/c', REDIS_URL: 'redis://d:6379' },
      startedAt: claimed.startedAt,
    });
    expect(resolveOperatorEnv({}, file)).toMatchObject({ ok: true, env: { DATABASE_URL: 'postgresql://a@b/c', REDIS_URL: 'redis://d:6379' } });
    expect(readdirSync(dir)).toEqual(['platform.json']);
  });

  it('says who runs, where, and what to do', () => {
    const message = alreadyRunningMessage(file, { pid: 4321, gatewayUrl: 'http://127.0.0.1:8080', state: 'running', startedAt: '2026-12-04T10:00:00.000Z' });
    expect(message).toContain('Switchyard is already running here (pid 4321, gateway http://127.0.0.1:8080, since 2026-12-04T10:00:00.000Z)');
    expect(message).toContain('kill 4321');
    expect(alreadyRunningMessage(file, { pid: 4321, gatewayUrl: 'http://127.0.0.1:8080', state: 'starting' })).toContain('already starting here (pid 4321');
  });
});
