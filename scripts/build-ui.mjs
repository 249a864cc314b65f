#!/usr/bin/env node
// `npm run ui:build`: builds the web UI (services/gateway/ui, Vite) into its dist/ folder, which the
// gateway serves at `/` — only when its sources changed since the last build (a SHA-256 of the
// sources, the lock file and this script, kept in dist/.source-hash), so `npm start` pays for a build once.
// `--force` builds anyway. Plain Node.js: `npm start` and the browser tests call it.
// One build at a time: jest's workers each ask for one as their browser tests start, and Vite empties
// dist/ as it builds, so a second build would take the page away from a test already using the first.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { processAlive } from './lib/platform-file.cjs';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const uiDir = path.join(root, 'services/gateway/ui');
const distDir = path.join(uiDir, 'dist');
const hashFile = path.join(distDir, '.source-hash');

/** Every file of the UI's sources, sorted, without the build output. */
function sourceFiles(dir) {
  const files = [];
  for (const name of readdirSync(dir).sort()) {
    if (name === 'dist' || name === 'node_modules') continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) files.push(...sourceFiles(full));
    else files.push(full);
  }
  return files;
}

function sourceHash() {
  const hash = createHash('sha256');
  for (const file of [...sourceFiles(uiDir), path.join(root, 'package-lock.json'), fileURLToPath(import.meta.url)]) {
    hash.update(path.relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** Runs `build` holding a lock directory (made atomically by mkdir) named after this checkout. */
async function exclusively(build) {
  const lock = path.join(os.tmpdir(), `switchyard-ui-build-${createHash('sha256').update(root).digest('hex').slice(0, 16)}`);
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }));
      // A lock left by a build that was killed is taken over.
      if (holder > 0 && !processAlive(holder)) rmSync(lock, { recursive: true, force: true });
      else await sleep(200);
    }
  }
  try {
    return build();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function build() {
  const wanted = sourceHash();
  const built = existsSync(hashFile) ? readFileSync(hashFile, 'utf8').trim() : undefined;
  if (!process.argv.includes('--force') && built === wanted && existsSync(path.join(distDir, 'index.html'))) {
    console.log('[ui] the web UI is up to date');
    return 0;
  }
  console.log('[ui] building the web UI');
  const vite = path.join(root, 'node_modules/vite/bin/vite.js');
  // Always React's production build: Vite keeps a NODE_ENV it finds set, and jest sets it to `test`,
  // which gave the browser tests (and a bench reusing their build) React's development build.
  const result = spawnSync(process.execPath, [vite, 'build', uiDir], { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (result.status !== 0) {
    console.error('[ui] the web UI build failed');
    return result.status ?? 1;
  }
  writeFileSync(hashFile, `${wanted}\n`);
  return 0;
}

process.exitCode = await exclusively(build);
