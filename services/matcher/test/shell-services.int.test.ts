import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import path from 'node:path';
import { createLogger, type Logger } from '@switchyard/logging';
import type { Closable } from '@switchyard/runtime';
import { redisUrl, waitFor } from '@switchyard/testing';
import { loadApprovalsConfig } from '../../approvals/src/config';
import { startApprovals } from '../../approvals/src/service';
import { loadNotifierConfig } from '../../notifier/src/config';
import { startNotifier } from '../../notifier/src/service';

/*
 * Approvals and notifier are shells until their own issues land: each must
 * still start against real Redis, answer its health probes (what compose and
 * orchestrators watch) and stop cleanly. One table covers them so that they
 * stay alike. (The runner left this table with issue 3: its own tests cover it.)
 */
type Start = (env: NodeJS.ProcessEnv, log: Logger) => Promise<Closable & { healthPort: number }>;

const SHELLS: ReadonlyArray<[name: string, start: Start]> = [
  ['approvals', (env, log) => startApprovals(loadApprovalsConfig({ ...env, APPROVALS_HEALTH_PORT: '0' }), log)],
  ['notifier', (env, log) => startNotifier(loadNotifierConfig({ ...env, NOTIFIER_HEALTH_PORT: '0' }), log)],
];

const ROOT = path.resolve(__dirname, '../../..');
const TSX_CLI = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');
const log = createLogger({ service: 'test', level: 'silent' });

/** Resolves true when something accepts a TCP connection on the port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe.each(SHELLS)('%s shell service (real Redis)', (name, start) => {
  it('answers /healthz and /readyz with 200, then closes and frees its port', async () => {
    const service = await start({ REDIS_URL: redisUrl() }, log);
    try {
      const base = `http://127.0.0.1:${service.healthPort}`;
      const healthz = await fetch(`${base}/healthz`);
      expect(healthz.status).toBe(200);
      const readyz = await fetch(`${base}/readyz`);
      expect(readyz.status).toBe(200);
      expect(await readyz.json()).toEqual({ ok: true, checks: { redis: 'ok' } });
    } finally {
      await service.close();
    }
    // Nothing left listening: with the Redis connection closed too, the process would exit.
    expect(await accepts(service.healthPort)).toBe(false);
    // close() is memoised, so a second SIGTERM or an error path may call it again.
    await expect(service.close()).resolves.toBeUndefined();
  });

  it('main.ts starts, logs that it started and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [TSX_CLI, `services/${name}/src/main.ts`], {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL: redisUrl(), [`${name.toUpperCase()}_HEALTH_PORT`]: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(async () => output.includes(`${name} started (shell: no work yet)`), { what: `${name} started`, timeoutMs: 30_000 });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('a shell service without Redis', () => {
  it('refuses to start, so a misconfigured deployment fails at once', async () => {
    // Port 1 on loopback refuses connections at once.
    await expect(SHELLS[0]![1]({ REDIS_URL: 'redis://127.0.0.1:1' }, log)).rejects.toThrow();
    // ioredis arms a 2 s `disconnectTimeout` timer even when the socket is already closed;
    // wait it out so that jest's worker exits without a leaked-handle warning.
    await new Promise((resolve) => setTimeout(resolve, 2100));
  });
});
