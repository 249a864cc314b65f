#!/usr/bin/env node
// `npm run ui:build`: builds the web UI (services/gateway/ui, Vite) into its dist/ folder, which the
// gateway serves at `/` — only when its sources changed since the last build (a SHA-256 of the
// sources, the lock file and this script, kept in dist/.source-hash), so `npm start` pays for a build once.
// `--force` builds anyway. Plain Node.js: `npm start`, jest's global setup and bench:ui call it.
// Never two at once on one checkout: Vite empties dist/ as it builds, taking the page away from
// whatever serves it (jest builds once, before its workers start, not per browser test).
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
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

const wanted = sourceHash();
const built = existsSync(hashFile) ? readFileSync(hashFile, 'utf8').trim() : undefined;
if (!process.argv.includes('--force') && built === wanted && existsSync(path.join(distDir, 'index.html'))) {
  console.log('[ui] the web UI is up to date');
  process.exit(0);
}
console.log('[ui] building the web UI');
const vite = path.join(root, 'node_modules/vite/bin/vite.js');
// Always React's production build: Vite keeps a NODE_ENV it finds set, and jest sets it to `test`,
// which gave the browser tests (and a bench reusing their build) React's development build.
const result = spawnSync(process.execPath, [vite, 'build', uiDir], { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
if (result.status !== 0) {
  console.error('[ui] the web UI build failed');
  process.exit(result.status ?? 1);
}
writeFileSync(hashFile, `${wanted}\n`);
