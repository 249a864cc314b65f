// Where `npm start` records the servers it chose (.data/platform.json), so that the operator
// commands (`npm run admin -- …`) reach the same PostgreSQL and Redis — on the embedded path
// these are found nowhere else. Plain Node.js with no dependencies (CommonJS, so that start.mjs,
// the admin CLI under tsx and jest can all load it).
'use strict';

const { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');

/** The variables the record holds, in the order they are reported. */
const RECORDED = ['DATABASE_URL', 'REDIS_URL', 'REDIS_PREFIX'];

/**
 * The record's path: SWITCHYARD_PLATFORM_FILE, else <root>/.data/platform.json.
 * @param {string} root the repository
 * @param {Record<string, string | undefined>} env
 */
function platformFilePath(root, env) {
  return path.resolve(env.SWITCHYARD_PLATFORM_FILE || path.join(root, '.data', 'platform.json'));
}

/**
 * Writes the record (owner-only: the URLs may carry a password).
 * @param {string} file
 * @param {{pid: number, gatewayUrl: string, env: Record<string, string | undefined>}} platform
 */
function writePlatformFile(file, { pid, gatewayUrl, env }) {
  const recorded = Object.fromEntries(RECORDED.filter((name) => env[name]).map((name) => [name, env[name]]));
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ pid, gatewayUrl, env: recorded, startedAt: new Date().toISOString() }, null, 2)}\n`, {
    mode: 0o600,
  });
}

/** Removes the record if it is the one process `pid` wrote (a later `npm start` may own it). */
function removePlatformFile(file, pid) {
  const record = readRecord(file);
  if (record && record.pid === pid) rmSync(file, { force: true });
}

function readRecord(file) {
  if (!existsSync(file)) return null;
  try {
    const record = JSON.parse(readFileSync(file, 'utf8'));
    return record && typeof record === 'object' && Number.isInteger(record.pid) ? record : null;
  } catch {
    return null;
  }
}

/** Whether a process with this id runs (EPERM: it does, under another user). */
function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * The environment an operator command runs with: DATABASE_URL and REDIS_URL as given, else
 * taken from the record of a running `npm start`. Never a default: a command that fell back
 * to 127.0.0.1:5432 could create a workspace in a database the platform does not use.
 * @param {Record<string, string | undefined>} env the command's environment
 * @param {string} file the record's path
 * @param {(pid: number) => boolean} [alive] whether a process runs
 * @returns {{ok: true, env: Record<string, string>, from: string | null} | {ok: false, reason: string}}
 *   `env` holds only the variables taken from the record; `from` says whose they are (null: none taken)
 */
function resolveOperatorEnv(env, file, alive = processAlive) {
  const missing = ['DATABASE_URL', 'REDIS_URL'].filter((name) => !env[name]);
  if (missing.length === 0) return { ok: true, env: {}, from: null };
  const record = readRecord(file);
  const unset = `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set`;
  if (!record) {
    return { ok: false, reason: `${unset} and no platform started by \`npm start\` was found (${file}): start it, or set ${missing.join(' and ')}` };
  }
  if (!alive(record.pid)) {
    return {
      ok: false,
      reason: `${unset} and the platform recorded in ${file} (npm start, pid ${record.pid}) is not running: start it again, or set ${missing.join(' and ')}`,
    };
  }
  const taken = Object.fromEntries(RECORDED.filter((name) => !env[name] && record.env?.[name]).map((name) => [name, record.env[name]]));
  const stillMissing = missing.filter((name) => !taken[name]);
  if (stillMissing.length > 0) return { ok: false, reason: `${stillMissing.join(' and ')} is not set and ${file} does not record it` };
  return { ok: true, env: taken, from: `the platform \`npm start\` runs (pid ${record.pid}, ${record.gatewayUrl})` };
}

module.exports = { platformFilePath, processAlive, removePlatformFile, resolveOperatorEnv, writePlatformFile };
