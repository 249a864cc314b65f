// Whether node_modules is what package-lock.json asks for, judged by content, never by file
// times: a fresh clone with a copied node_modules has a lock newer than everything installed.
// Plain Node.js with no dependencies (CommonJS, so jest can load it too): `npm start` and
// `npm test` call it before `npm install` has run.
'use strict';

const { existsSync, readFileSync } = require('node:fs');
const path = require('node:path');

/** Canonical JSON (keys sorted), so that two entries compare equal whatever their key order. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Compares package-lock.json with npm's own record of what it installed
 * (node_modules/.package-lock.json, rewritten by every npm install): current when every
 * installed entry equals the lock's, nothing extra is installed, and whatever the lock has
 * that is not installed is optional (packages for other platforms, which npm skips).
 * @param {{lock: any, installed: any}} files the parsed files; null when a file is missing
 * @returns {{current: true} | {current: false, reason: string}}
 */
function compareInstall({ lock, installed }) {
  if (!lock) return { current: false, reason: 'no package-lock.json' };
  if (!installed) return { current: false, reason: 'node_modules was not installed by npm (no node_modules/.package-lock.json)' };
  const wanted = lock.packages ?? {};
  const have = installed.packages ?? {};
  for (const [name, entry] of Object.entries(have)) {
    if (!(name in wanted)) return { current: false, reason: `${name} is installed but not in package-lock.json` };
    if (canonical(entry) !== canonical(wanted[name])) return { current: false, reason: `${name} differs from package-lock.json` };
  }
  for (const [name, entry] of Object.entries(wanted)) {
    // The root project ("") is never listed among what was installed.
    if (name === '' || name in have || entry.optional) continue;
    return { current: false, reason: `${name} is not installed` };
  }
  return { current: true };
}

/** Reads a JSON file, or null when it is missing or not JSON (a half-written file means: reinstall). */
function readJson(file) {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * The install state of the project at `root`: compareInstall over its package-lock.json and
 * node_modules/.package-lock.json.
 * @param {string} root the folder holding package.json
 */
function installState(root) {
  return compareInstall({
    lock: readJson(path.join(root, 'package-lock.json')),
    installed: readJson(path.join(root, 'node_modules', '.package-lock.json')),
  });
}

module.exports = { compareInstall, installState };
