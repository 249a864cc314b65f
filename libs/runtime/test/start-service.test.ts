import { createLogger } from '@switchyard/logging';
import { startService, type ServiceScope } from '@switchyard/runtime';
import { Counter } from 'prom-client';

/*
 * startService is the shape every service follows: what it opens is closed
 * once, every part even when one fails, and /readyz reports each check.
 */
const log = createLogger({ service: 'test', level: 'silent' });
const options = { name: 'probe', healthPort: 0, host: '127.0.0.1', log };

describe('startService', () => {
  it('serves /healthz, /readyz and /metrics with the default metrics and what the service registered', async () => {
    const service = await startService(options, async (scope) => {
      scope.check({ store: async () => undefined });
      new Counter({ name: 'probe_things_total', help: 'things', registers: [scope.registry] });
      return { extra: 'kept' };
    });
    try {
      const base = `http://127.0.0.1:${service.healthPort}`;
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const ready = await fetch(`${base}/readyz`);
      expect({ status: ready.status, body: await ready.json() }).toEqual({ status: 200, body: { ok: true, checks: { store: 'ok' } } });
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toContain('process_cpu_user_seconds_total');
      expect(metrics).toContain('probe_things_total');
      expect(service.extra).toBe('kept');
    } finally {
      await service.close();
    }
  });

  it('answers /readyz 503 naming the check that fails, while the others pass', async () => {
    const service = await startService(options, async (scope) => {
      scope.check({ redis: async () => undefined });
      scope.check({ postgres: async () => Promise.reject(new Error('connection refused')) });
      return {};
    });
    try {
      const ready = await fetch(`http://127.0.0.1:${service.healthPort}/readyz`);
      expect({ status: ready.status, body: await ready.json() }).toEqual({
        status: 503,
        body: { ok: false, checks: { redis: 'ok', postgres: 'connection refused' } },
      });
    } finally {
      await service.close();
    }
  });

  it('closes once: every part, the last registered first, even when one fails, and the health port', async () => {
    const closed: string[] = [];
    const wire = async (scope: ServiceScope) => {
      scope.onClose(async () => void closed.push('connection'));
      scope.onClose({ close: async () => Promise.reject(new Error('consumer close failed')).finally(() => closed.push('consumer')) });
      scope.onClose(async () => void closed.push('relay'));
      return {};
    };
    const service = await startService(options, wire);
    const first = service.close();
    const second = service.close();
    expect(second).toBe(first);
    await expect(first).rejects.toThrow('consumer close failed');
    await expect(service.close()).rejects.toThrow('consumer close failed');
    expect(closed).toEqual(['relay', 'consumer', 'connection']);
    await expect(fetch(`http://127.0.0.1:${service.healthPort}/healthz`)).rejects.toThrow();
  });

  it('closes what was registered when the wiring fails, and fails with the wiring’s error', async () => {
    const closed: string[] = [];
    const start = startService(options, async (scope) => {
      scope.onClose(async () => void closed.push('connection'));
      throw new Error('store unreachable');
    });
    await expect(start).rejects.toThrow('store unreachable');
    expect(closed).toEqual(['connection']);
  });

  it('fails start-up, closing what was opened, when its health port is taken', async () => {
    const holder = await startService(options, async () => ({}));
    try {
      const closed: string[] = [];
      const start = startService({ ...options, healthPort: holder.healthPort }, async (scope) => {
        scope.onClose(async () => void closed.push('connection'));
        return {};
      });
      await expect(start).rejects.toThrow(/EADDRINUSE/);
      expect(closed).toEqual(['connection']);
    } finally {
      await holder.close();
    }
  });
});
