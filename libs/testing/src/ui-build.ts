import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/**
 * Builds the web UI when its sources changed (scripts/build-ui.mjs, the same
 * script `npm start` runs), once, before the browser tests' processes start:
 * Vite empties dist/ as it builds, so two builds at once (one per jest
 * worker) would take the page away from a test already serving it.
 */
export function buildUi(): void {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-ui.mjs')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], timeout: 180_000 });
}
