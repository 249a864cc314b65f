import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * runService in a real process: a SIGTERM that arrives while the service is
 * still starting (a supervisor, or a test that acts on its first lines) closes
 * it once started and exits 0 — it must not be killed by the signal's default
 * action with nothing closed.
 */
describe('runService', () => {
  it('a SIGTERM during start-up closes the service once it started, and exits 0', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures/slow-start-service.ts')], {
      cwd: path.resolve(__dirname, '../../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | string | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
    for (let i = 0; i < 600 && !output.includes('"msg":"starting"'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(output).toContain('"msg":"starting"');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const order = ['"msg":"starting"', '"msg":"shutting down"', '"msg":"slow-start started"', '"msg":"closed"'].map((line) => output.indexOf(line));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });
});
