import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { redisUrl } from './infra';
import { waitFor } from './wait-for';

/** What the shell-service suite needs of one service. */
export interface ShellServiceSuiteOptions {
  /** The service's folder name and the `<name> started` line it logs. */
  name: string;
  /** Its health-port variable (set to 0: a free port). */
  healthPortVariable: string;
  /** Starts it in this process with that environment. */
  start(env: NodeJS.ProcessEnv): Promise<{ healthPort: number; close(): Promise<void> }>;
}

/**
 * Why this exists: approvals and notifier are shells until their own issues
 * land, on the shape every service follows (startService). Each must still
 * start against real Redis, answer its health probes (what compose and
 * orchestrators watch), refuse to start without Redis, and stop cleanly —
 * the same checks for both, so one suite.
 */
export function shellServiceSuite(options: ShellServiceSuiteOptions): void {
  const ROOT = path.resolve(__dirname, '../../..');
  const TSX_CLI = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');
  const { name, healthPortVariable } = options;
  const start = (env: NodeJS.ProcessEnv) => options.start({ ...env, [healthPortVariable]: '0' });

  /** Resolves true when the port is free again (a listener can bind it). */
  const isFree = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });

  describe(`${name} shell service (real Redis)`, () => {
    it('answers /healthz and /readyz with 200, then closes and frees its port', async () => {
      const service = await start({ REDIS_URL: redisUrl() });
      try {
        const base = `http://127.0.0.1:${service.healthPort}`;
        expect((await fetch(`${base}/healthz`)).status).toBe(200);
        const readyz = await fetch(`${base}/readyz`);
        expect({ status: readyz.status, body: await readyz.json() }).toEqual({ status: 200, body: { ok: true, checks: { redis: 'ok' } } });
      } finally {
        await service.close();
      }
      expect(await isFree(service.healthPort)).toBe(true);
      // close() is memoised, so a second SIGTERM or an error path may call it again.
      await expect(service.close()).resolves.toBeUndefined();
    });

    it('main.ts starts, logs that it started and exits 0 on SIGTERM', async () => {
      const child = spawn(process.execPath, [TSX_CLI, `services/${name}/src/main.ts`], {
        cwd: ROOT,
        env: { ...process.env, REDIS_URL: redisUrl(), [healthPortVariable]: '0', LOG_LEVEL: 'info' },
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

    it('refuses to start without Redis, so a misconfigured deployment fails at once', async () => {
      // Port 1 on loopback refuses connections at once.
      await expect(start({ REDIS_URL: 'redis://127.0.0.1:1' })).rejects.toThrow();
      // ioredis arms a 2 s `disconnectTimeout` timer even when the socket is already closed;
      // wait it out so that jest's worker exits without a leaked-handle warning.
      await new Promise((resolve) => setTimeout(resolve, 2100));
    });
  });
}
