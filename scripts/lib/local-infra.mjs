// The local infrastructure of `npm start` and `npm test`: dependencies, the Prisma client,
// Redis and PostgreSQL (found, or started here), and stopping what was started.
// Plain Node.js with no dependencies: it must run before `npm install` has.

import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installState } from './install-state.cjs';
import { accepts } from './platform-ports.cjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The environment handed to everything started; REDIS_URL and DATABASE_URL are added once resolved. */
export const env = { ...process.env };
/** What this script started, in start order; stopped in reverse. */
export const started = [];
let stopping = false;
/** Whether stopEverything has begun. */
export const isStopping = () => stopping;

let tag = 'start';
/** Sets the tag printed before every message. */
export const setTag = (value) => (tag = value);
export const say = (message) => console.log(`[${tag}] ${message}`);

/** Prints why start-up cannot go on, stops what was started, exits 1. */
export async function fail(message) {
  console.error(`[${tag}] ${message}`);
  await stopEverything(1);
}

/** Runs a command to completion with the terminal attached; false when it failed. */
export function run(command, args, extraEnv = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...env, ...extraEnv } });
  return result.status === 0;
}

/** Like `run`, without blocking: resolves true when the command succeeded. */
export function runInBackground(command, args, extraEnv = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', env: { ...env, ...extraEnv } });
    child.once('exit', (code) => resolve(code === 0));
    child.once('error', () => resolve(false));
  });
}

/** npm itself: the one that runs `npm start` when there is one, so versions match. */
export function npm(args, extraEnv, runner = run) {
  const npmCli = process.env.npm_execpath;
  return npmCli && npmCli.endsWith('.js') ? runner(process.execPath, [npmCli, ...args], extraEnv) : runner('npm', args, extraEnv);
}

/** `npm` without blocking, for steps that run side by side. */
export const npmInBackground = (args, extraEnv) => npm(args, extraEnv, runInBackground);

/** Installs dependencies unless node_modules already matches package-lock.json (see install-state.cjs). */
export async function installDependencies() {
  const state = installState(root);
  if (state.current) return;
  const args = existsSync(path.join(root, 'package-lock.json')) ? ['ci'] : ['install'];
  say(`installing dependencies (npm ${args[0]}): ${state.reason}`);
  if (!npm(args)) await fail(`npm ${args[0]} failed`);
}

/** Resolves true when a Redis answers PING on host:port; throws when something else listens there. */
export function redisAnswers(host, port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    let reply = '';
    const done = (fn) => {
      socket.destroy();
      fn();
    };
    socket.setTimeout(1000, () => done(() => reject(new Error(`${host}:${port} accepts connections but does not answer PING`))));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) {
        done(() => (reply.startsWith('+PONG') ? resolve(true) : reject(new Error(`${host}:${port} answered PING with ${reply.trim()}`))));
      }
    });
    socket.once('error', () => done(() => resolve(false)));
  });
}

const onPath = (program) =>
  (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && existsSync(path.join(dir, program)));

/** Spawns a long-running helper in its own process group, so that Ctrl+C reaches only us and we stop it in order. */
export function spawnChild(name, command, args, options = {}) {
  const child = spawn(command, args, { cwd: root, env, detached: true, stdio: ['ignore', 'inherit', 'inherit'], ...options });
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    // A program that cannot be spawned at all (e.g. not executable) emits 'error' and no 'exit'.
    child.once('error', (error) => (say(`${name}: ${error.message}`), resolve(1)));
  });
  const entry = { name, child, exited };
  started.push(entry);
  return entry;
}

export const hasExited = (child) => child.exitCode !== null || child.signalCode !== null;

export async function waitUntil(probe, { timeoutMs, what, child }) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && hasExited(child)) return false;
    if (await probe().catch(() => false)) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  say(`timed out waiting for ${what}`);
  return false;
}

export async function resolveRedis() {
  if (env.REDIS_URL) return { url: env.REDIS_URL, how: 'from REDIS_URL' };
  const port = Number(env.SWITCHYARD_REDIS_PORT || 6379);
  const url = `redis://127.0.0.1:${port}`;
  try {
    if (await redisAnswers('127.0.0.1', port)) return { url, how: 'already running' };
  } catch (error) {
    return fail(`${error.message}: set REDIS_URL to the Redis to use`);
  }
  if (!onPath('redis-server')) {
    return fail(
      'Redis is needed and none answers on 127.0.0.1:' + port + '. Either install it ' +
        '(Debian/Ubuntu: `sudo apt-get install redis-server`; macOS: `brew install redis`) and run `npm start` again, ' +
        'or set REDIS_URL=redis://HOST:PORT to a running Redis.',
    );
  }
  const dir = path.join(root, '.data', 'redis');
  mkdirSync(dir, { recursive: true });
  say(`starting redis-server on 127.0.0.1:${port} (data and log in ${dir})`);
  // The same durability settings as docker-compose.yml: an accepted fact survives a crash.
  const { child } = spawnChild('redis', 'redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--logfile', path.join(dir, 'redis.log'),
    '--appendonly', 'yes', '--appendfsync', 'everysec', '--maxmemory-policy', 'noeviction', '--daemonize', 'no',
  ]);
  const up = await waitUntil(() => redisAnswers('127.0.0.1', port), { timeoutMs: 15_000, what: 'redis-server', child });
  return up ? { url, how: 'started here' } : fail(`redis-server did not start; see ${path.join(dir, 'redis.log')}`);
}

export async function resolvePostgres() {
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, how: 'from DATABASE_URL' };
  const forced = ['1', 'true', 'yes'].includes(env.SWITCHYARD_EMBEDDED_PG ?? '');
  if (!forced && (await accepts('127.0.0.1', 5432))) {
    return { url: 'postgresql://postgres@127.0.0.1:5432/switchyard', how: 'already running on 5432' };
  }
  const dataDir = path.resolve(env.SWITCHYARD_PG_DATA || path.join(root, '.data', 'postgres'));
  const port = Number(env.SWITCHYARD_PG_PORT || 5433);
  say(`starting an embedded PostgreSQL on 127.0.0.1:${port} (data in ${dataDir})`);
  const { child } = spawnChild('postgres', process.execPath, [path.join(root, 'scripts', 'embedded-postgres.mjs')], {
    env: { ...env, SWITCHYARD_PG_DATA: dataDir, SWITCHYARD_PG_PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise((resolve) => {
    child.once('message', (message) => resolve(message?.type === 'ready' ? message : null));
    child.once('exit', () => resolve(null));
  });
  if (!ready) return fail('the embedded PostgreSQL did not start (see the message above)');
  return { url: ready.url, how: `embedded, log in ${ready.logFile}` };
}

/**
 * SECRETS_KEY (the key workspace secrets are encrypted with): the one given, else the one in
 * .data/secrets.key, else a new random one written there (owner-only) on the first run, so
 * secrets stay readable across restarts. Sets env.SECRETS_KEY; returns where it came from.
 */
export function resolveSecretsKey() {
  if (env.SECRETS_KEY) return 'from SECRETS_KEY';
  const file = path.join(root, '.data', 'secrets.key');
  let how = `from ${file}`;
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    how = `generated into ${file}`;
    say(`generated SECRETS_KEY into ${file}: keep it (and back it up), workspace secrets cannot be read without it`);
  }
  env.SECRETS_KEY = readFileSync(file, 'utf8').trim();
  return how;
}

/** Hides a password in a URL before printing it. */
export function redact(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

/** Stops what we started, newest first (services before the servers they use), then exits. */
export async function stopEverything(code) {
  // Already stopping: the caller waits for the exit that the first call makes.
  if (stopping) return new Promise(() => {});
  stopping = true;
  for (const { name, child, exited } of [...started].reverse()) {
    if (hasExited(child)) continue;
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      say(`${name} did not stop within 30 s; killing it`);
      try {
        // The whole process group: tsx's child, or the postgres server under its helper.
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, 30_000);
    await exited;
    clearTimeout(timer);
  }
  process.exit(code);
}

