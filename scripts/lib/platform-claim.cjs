// One `npm start` per platform file: the first thing a start does is claim the record
// (.data/platform.json, platform-file.cjs) by creating it exclusively, so of two starts — even
// at the same instant — exactly one goes on, and the other stops before it touches anything,
// naming the one that runs. A record left by a start that is gone (killed, crashed) is taken
// over; a record of a live start is never removed or rewritten by another.
// Plain Node.js with no dependencies (CommonJS: start.mjs and jest load it).
'use strict';

const { randomBytes } = require('node:crypto');
const { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { parseRecord, processAlive, readText, recordText } = require('./platform-file.cjs');

/**
 * Whether `pid` is a running `npm start`: a live process, and on Linux one whose command line
 * names start.mjs — a record whose process died and whose id was handed to another program (a
 * container restarted with the same ids) is stale, not a running platform.
 */
function isStartProcess(pid) {
  if (!processAlive(pid)) return false;
  let commandLine;
  try {
    commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    // No /proc (macOS), or not ours to read: the process is alive, that is all we know.
    return true;
  }
  return commandLine.includes('start.mjs');
}

/**
 * Creates `file` holding `text` only if no file of that name exists, and only complete: the
 * text is written to a file of its own first, then linked to the name (link(2) fails when the
 * name exists), so a reader never sees a claim half written. True when it was created here.
 */
function createExclusive(file, text) {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    if (error.code === 'EEXIST') return false;
    // A file system without hard links: an exclusive create, written at once after it.
    if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'].includes(error.code)) throw error;
    try {
      writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
      return true;
    } catch (fallbackError) {
      if (fallbackError.code === 'EEXIST') return false;
      throw fallbackError;
    }
  } finally {
    rmSync(temp, { force: true });
  }
}

/**
 * Replaces the stale record `seen` by this start's claim. Two starts may judge the same record
 * stale at once: a second, short-lived claim (`<file>.takeover`) lets one of them at a time look
 * again and replace it, so the other finds the first's live claim and stops.
 * @returns {{ok: true} | {ok: false, reason: string} | {busy: true}} busy: look again
 */
function takeOverStale(file, seen, text, alive) {
  const guard = `${file}.takeover`;
  if (!createExclusive(guard, text)) {
    const holder = parseRecord(readText(guard));
    if (holder === null || alive(holder.pid)) return { busy: true };
    return {
      ok: false,
      reason: `${guard} was left by a start (pid ${holder.pid}) that stopped while it replaced a stale ${path.basename(file)}: if no \`npm start\` runs here, remove it and start again`,
    };
  }
  try {
    // Still the record judged stale (not another start's new claim): ours to remove.
    if (readText(file) === seen) rmSync(file, { force: true });
    return createExclusive(file, text) ? { ok: true } : { busy: true };
  } finally {
    rmSync(guard, { force: true });
  }
}

/**
 * Claims the platform file for the start `claim.pid` (this process): creates it, `starting`,
 * unless a live start holds it. A record whose process is gone, or is this process's own id
 * (written by an earlier process that had it), is stale and is replaced. Nothing is written or
 * removed when another start holds it.
 * @param {string} file the platform file
 * @param {{pid: number, gatewayUrl: string}} claim this start and the gateway URL it will serve
 * @param {{alive?: (pid: number) => boolean, attempts?: number}} [options] alive: whether a pid
 *   is a running start (default isStartProcess); attempts: looks at a record that keeps changing
 * @returns {Promise<{ok: true} | {ok: false, running: object} | {ok: false, reason: string}>}
 *   running: the record of the start that holds it
 */
async function claimPlatformFile(file, claim, { alive = isStartProcess, attempts = 40 } = {}) {
  mkdirSync(path.dirname(file), { recursive: true });
  const text = recordText({ pid: claim.pid, gatewayUrl: claim.gatewayUrl, state: 'starting' });
  const holds = (pid) => pid !== claim.pid && alive(pid);
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    // Looked at before anything is written: a start refused leaves no trace, not even a moment's.
    const seen = readText(file);
    if (seen === null) {
      if (createExclusive(file, text)) return { ok: true };
      // Another start created it between the two: look at theirs.
      continue;
    }
    const record = parseRecord(seen);
    if (record && holds(record.pid)) return { ok: false, running: record };
    const taken = takeOverStale(file, seen, text, holds);
    if (!taken.busy) return taken;
    // Another start is replacing the stale record right now: look again in a moment.
    await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
  }
  return { ok: false, reason: `${file} kept changing while this start tried to claim it: is another \`npm start\` starting? Try again.` };
}

/**
 * The message for a start that found another holding the platform file: who runs, where, and
 * what to do.
 * @param {string} file the platform file
 * @param {{pid: number, gatewayUrl: string, state: string, startedAt?: string}} running its record
 */
function alreadyRunningMessage(file, running) {
  const what =
    running.state === 'starting'
      ? `Switchyard is already starting here (pid ${running.pid}; its gateway will be ${running.gatewayUrl})`
      : `Switchyard is already running here (pid ${running.pid}, gateway ${running.gatewayUrl}${running.startedAt ? `, since ${running.startedAt}` : ''})`;
  return [
    `${what}.`,
    `This start changed nothing. Use that one, or stop it first (Ctrl+C in its terminal, or \`kill ${running.pid}\`).`,
    `(recorded in ${file})`,
  ].join('\n');
}

module.exports = { alreadyRunningMessage, claimPlatformFile, isStartProcess };
