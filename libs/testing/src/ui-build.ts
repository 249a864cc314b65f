import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/**
 * Builds the web UI when its sources changed (scripts/build-ui.mjs, the same
 * script `npm start` runs). Called once before the browser tests start, never
 * per test file: two builds at once take the page away (see the script).
 */
export function buildUi(): void {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-ui.mjs')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], timeout: 180_000 });
}
