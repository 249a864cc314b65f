// The record of the `npm start` that runs here (.data/platform.json): which process runs the
// platform, at which gateway URL, and the servers it chose, so that the operator commands
// (`npm run admin -- …`) reach the same PostgreSQL and Redis — on the embedded path these are
// found nowhere else. The same file is the start's claim (platform-claim.cjs): it is created
// exclusively, `starting`, before anything else, and marked `running` once the gateway answers.
// Plain Node.js with no dependencies (CommonJS, so that start.mjs, the admin CLI under tsx and
// jest can all load it).
'use strict';

const { randomBytes } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
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
 * The record's text.
 * @param {{pid: number, gatewayUrl: string, state: 'starting' | 'running', env?: Record<string, string | undefined>, startedAt?: string}} record
 */
function recordText({ pid, gatewayUrl, state, env, startedAt }) {
  const recorded = env ? Object.fromEntries(RECORDED.filter((name) => env[name]).map((name) => [name, env[name]])) : undefined;
  const record = { pid, gatewayUrl, state, ...(recorded ? { env: recorded } : {}), startedAt: startedAt ?? new Date().toISOString() };
  return `${JSON.stringify(record, null, 2)}\n`;
}

/** A file's text, or null when it does not exist (or cannot be read). */
function readText(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * The record in a text, or null when it is not one. A record from before `state` existed was
 * written once the gateway answered: it reads as `running`.
 */
function parseRecord(text) {
  if (text === null) return null;
  try {
    const record = JSON.parse(text);
    if (!record || typeof record !== 'object' || !Number.isInteger(record.pid) || record.pid <= 0) return null;
    return { ...record, state: record.state === 'starting' ? 'starting' : 'running' };
  } catch {
    return null;
  }
}

/** The record in the file, or null when there is none (or it is not one). */
function readRecord(file) {
  return parseRecord(readText(file));
}

/**
 * Marks the record of process `pid` running, with the servers it chose: written to a file of
 * its own, then renamed over the record, so that a reader (another start, the admin CLI) never
 * sees half of it and the claim is held throughout. Owner-only: the URLs may carry a password.
 * @param {string} file
 * @param {{pid: number, gatewayUrl: string, env: Record<string, string | undefined>}} platform
 */
function writePlatformFile(file, { pid, gatewayUrl, env }) {
  const temp = `${file}.${pid}.${randomBytes(4).toString('hex')}.tmp`;
  mkdirSync(path.dirname(file), { recursive: true });
  // The claim's time stays: the platform runs since its start was claimed.
  const claimed = readRecord(file);
  const startedAt = claimed?.pid === pid ? claimed.startedAt : undefined;
  writeFileSync(temp, recordText({ pid, gatewayUrl, state: 'running', env, startedAt }), { mode: 0o600, flag: 'wx' });
  try {
    renameSync(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Removes the record if it is the one process `pid` wrote (any other start may own it). */
function removePlatformFile(file, pid) {
  const record = readRecord(file);
  if (record && record.pid === pid) rmSync(file, { force: true });
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
  if (record.state === 'starting') {
    return { ok: false, reason: `${unset} and the platform recorded in ${file} (npm start, pid ${record.pid}) is still starting: wait for its banner` };
  }
  const taken = Object.fromEntries(RECORDED.filter((name) => !env[name] && record.env?.[name]).map((name) => [name, record.env[name]]));
  const stillMissing = missing.filter((name) => !taken[name]);
  if (stillMissing.length > 0) return { ok: false, reason: `${stillMissing.join(' and ')} is not set and ${file} does not record it` };
  return { ok: true, env: taken, from: `the platform \`npm start\` runs (pid ${record.pid}, ${record.gatewayUrl})` };
}

module.exports = {
  parseRecord,
  platformFilePath,
  processAlive,
  readRecord,
  readText,
  recordText,
  removePlatformFile,
  resolveOperatorEnv,
  writePlatformFile,
};
