import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/**
 * Why this exists: the CI chaos tests run `npm run chaos` as an operator
 * would, as a process of its own, and judge it by its exit code and report.
 * Resolves with both; the report goes into a failing test's message.
 */
export async function runChaosCommand(args: readonly string[]): Promise<{ exit: number | null; report: string }> {
  const harness = spawn(process.execPath, ['--import', 'tsx', 'scripts/chaos/main.ts', ...args], { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let report = '';
  harness.stdout.on('data', (chunk: Buffer) => (report += chunk.toString()));
  harness.stderr.on('data', (chunk: Buffer) => (report += chunk.toString()));
  const exit = await new Promise<number | null>((resolve) => harness.on('exit', (code) => resolve(code)));
  return { exit, report };
}
