import { connect } from 'node:net';
import { createLogger, type Logger } from '@switchyard/logging';
import type { Closable } from '@switchyard/runtime';
import { redisUrl } from '@switchyard/testing';
import { loadApprovalsConfig } from '../../approvals/src/config';
import { startApprovals } from '../../approvals/src/service';
import { loadNotifierConfig } from '../../notifier/src/config';
import { startNotifier } from '../../notifier/src/service';
import { loadRunnerConfig } from '../../runner/src/config';
import { startRunner } from '../../runner/src/service';
import { loadMatcherConfig } from '../src/config';
import { startMatcher } from '../src/service';

/*
 * The matcher, runner, approvals and notifier are shells until their own
 * issues land: each must still start against real Redis, answer its health
 * probes (what compose and orchestrators watch) and stop cleanly. One table
 * covers the four so that they stay alike.
 */
type Start = (env: NodeJS.ProcessEnv, log: Logger) => Promise<Closable & { healthPort: number }>;

const SHELLS: ReadonlyArray<[name: string, start: Start]> = [
  ['matcher', (env, log) => startMatcher(loadMatcherConfig({ ...env, MATCHER_HEALTH_PORT: '0' }), log)],
  ['runner', (env, log) => startRunner(loadRunnerConfig({ ...env, RUNNER_HEALTH_PORT: '0' }), log)],
  ['approvals', (env, log) => startApprovals(loadApprovalsConfig({ ...env, APPROVALS_HEALTH_PORT: '0' }), log)],
  ['notifier', (env, log) => startNotifier(loadNotifierConfig({ ...env, NOTIFIER_HEALTH_PORT: '0' }), log)],
];

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

describe.each(SHELLS)('%s shell service (real Redis)', (_name, start) => {
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

  it('refuses to start when Redis does not answer', async () => {
    // Port 1 on loopback refuses connections at once.
    await expect(start({ REDIS_URL: 'redis://127.0.0.1:1' }, log)).rejects.toThrow();
  });
});
