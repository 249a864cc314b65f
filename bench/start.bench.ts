/**
 * `npm run bench:start`: `npm start` from a fresh clone to ready (issue 16: ≤ 90 s with the UI
 * built). Clones this checkout's HEAD into a temporary folder, runs `npm ci` there (timed apart),
 * then `npm start` with no REDIS_URL / DATABASE_URL, an embedded PostgreSQL and a Redis it starts
 * itself (free ports, as on a machine with neither), until the gateway's `/healthz` answers 200.
 * Each line `npm start` prints is stamped, so the phases (Prisma client, UI build, Redis,
 * PostgreSQL, migrations, services) are timed too. Then the same again in the same clone (a
 * second start: nothing to build, the database initialised). Writes its section of BENCHMARKS.md.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fmt } from './lib/stats';
import { machineLine, writeSection } from './lib/report';

const ROOT = path.resolve(__dirname, '..');
const TARGET_S = 90;
const TIMEOUT_MS = 300_000;

/** A TCP port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

interface StartTiming {
  readyMs: number | undefined;
  /** Each line `npm start` printed, with the ms since it was spawned. */
  lines: Array<{ ms: number; text: string }>;
}

/** Runs `npm start` in `dir` until the gateway is healthy, then stops it (SIGTERM to its group). */
async function timeStart(dir: string, env: NodeJS.ProcessEnv, port: number): Promise<StartTiming> {
  const t0 = performance.now();
  const child: ChildProcess = spawn('npm', ['start'], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: StartTiming['lines'] = [];
  const collect = (chunk: Buffer) => {
    for (const text of chunk.toString().split('\n')) if (text.trim()) lines.push({ ms: performance.now() - t0, text: text.slice(0, 200) });
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  // 'close': every process holding the output pipes (the services, the servers started) is gone.
  let closed = false;
  const gone = new Promise<void>((resolve) => child.once('close', () => ((closed = true), resolve())));
  let readyMs: number | undefined;
  while (performance.now() - t0 < TIMEOUT_MS && child.exitCode === null) {
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((res) => res.ok, () => false);
    if (ok) {
      readyMs = performance.now() - t0;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Ctrl+C as a terminal sends it: SIGINT to the foreground group (npm, start.mjs).
  process.kill(-child.pid!, 'SIGINT');
  await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 60_000))]);
  if (!closed) throw new Error(`npm start did not stop within 60 s of SIGINT: find what it left running under ${dir}`);
  return { readyMs, lines };
}

/** The ms at which the first line matching `pattern` was printed. */
const at = (timing: StartTiming, pattern: RegExp) => timing.lines.find((line) => pattern.test(line.text))?.ms;

function phases(timing: StartTiming): string {
  const marks: Array<[string, RegExp]> = [
    ['Prisma client generated', /Generated Prisma Client|prisma client is up to date/i],
    ['UI built', /built in|the web UI is up to date/],
    ['redis-server starting', /starting redis-server/],
    ['embedded PostgreSQL starting', /starting an embedded PostgreSQL/],
    ['migrations applied', /migration\(s\) applied|no pending migrations/],
  ];
  const found = marks.map(([label, pattern]) => [label, at(timing, pattern)] as const).filter(([, ms]) => ms !== undefined);
  return found.map(([label, ms]) => `${label} ${fmt(ms! / 1000, 1)} s`).join('; ');
}

async function main(): Promise<void> {
  const load = os.loadavg().map((n) => n.toFixed(2)).join(' / ');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'sy-fresh-'));
  // The embedded PostgreSQL runs as `postgres` when we are root: it must be able to enter the clone.
  chmodSync(tmp, 0o755);
  const dir = path.join(tmp, 'switchyard');
  try {
    execFileSync('git', ['clone', '--quiet', ROOT, dir], { stdio: 'inherit' });
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir }).toString().trim();
    const ci0 = performance.now();
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    const ciMs = performance.now() - ci0;
    console.log(`npm ci: ${fmt(ciMs / 1000, 1)} s`);

    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(env)) if (/^(REDIS_URL|DATABASE_URL|REDIS_PREFIX|SECRETS_KEY|npm_)/.test(key)) delete env[key];
    const port = await freePort();
    Object.assign(env, {
      PORT: String(port),
      SWITCHYARD_EMBEDDED_PG: '1',
      SWITCHYARD_PG_PORT: String(await freePort()),
      SWITCHYARD_REDIS_PORT: String(await freePort()),
      ...Object.fromEntries(['GATEWAY', 'EVENT_LOG', 'MATCHER', 'RUNNER', 'APPROVALS', 'NOTIFIER'].map((s) => [`${s}_HEALTH_PORT`, '0'])),
    });
    const loadAtFirstStart = os.loadavg().map((n) => n.toFixed(2)).join(' / ');
    const first = await timeStart(dir, env, port);
    console.log(`first npm start: ${first.readyMs === undefined ? 'not ready' : `${fmt(first.readyMs / 1000, 1)} s`}; ${phases(first)}`);
    const second = await timeStart(dir, env, port);
    console.log(`second npm start: ${second.readyMs === undefined ? 'not ready' : `${fmt(second.readyMs / 1000, 1)} s`}; ${phases(second)}`);
    if (first.readyMs === undefined) console.log(first.lines.map((l) => `${fmt(l.ms)} ${l.text}`).join('\n'));

    const row = (label: string, t: StartTiming) =>
      `| ${label} | ${t.readyMs === undefined ? 'not ready' : `${fmt(t.readyMs / 1000, 1)} s`} | ${phases(t)} |`;
    writeSection(
      'start',
      `## \`npm start\` from a fresh clone (\`npm run bench:start\`)

- Date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; load average (1 / 5 / 15 min) ${load} before \`npm ci\`, ${loadAtFirstStart} as the first \`npm start\` began
- Machine: ${machineLine('Redis and PostgreSQL started by `npm start`')} (cloned: ${commit})
- Command: \`npm run bench:start\` (\`git clone\` of the checkout into a temporary folder, \`npm ci\` there, then \`npm start\` with no REDIS_URL / DATABASE_URL, an embedded PostgreSQL and a \`redis-server\` it starts, as on a machine with neither; ready = the gateway's \`/healthz\` answers 200). History: [docs/perf/ui.md](docs/perf/ui.md)

\`npm ci\` in the fresh clone (not part of the target, npm's cache warm): ${fmt(ciMs / 1000, 1)} s.

| \`npm start\` | to ready | seconds after \`npm start\` was spawned |
|---|---:|---|
${row('first, fresh clone (builds the UI, initialises PostgreSQL)', first)}
${row('second, same clone', second)}

Target (issue 16): ≤ ${TARGET_S} s to ready from a fresh clone with the UI built: ${first.readyMs !== undefined && first.readyMs <= TARGET_S * 1000 ? 'met' : '**not met**'}.
`,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
