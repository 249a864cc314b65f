import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** A named readiness check: resolves when the dependency answers. */
export type ReadinessCheck = () => Promise<void>;

/** Options of startHealthServer. */
export interface HealthServerOptions {
  /** Port to listen on; 0 picks a free one. */
  port: number;
  /** Host to bind. @defaultValue '127.0.0.1' */
  host?: string;
  /** Checked by /readyz. */
  checks: Record<string, ReadinessCheck>;
  /** Served at /metrics. */
  registry: Registry;
}

/** A running health server. */
export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/**
 * `/healthz` (the process is up), `/readyz` (every dependency answers) and
 * `/metrics` (Prometheus) for services that have no HTTP API of their own.
 */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.url === '/healthz') return send(res, 200, { status: 'ok' });
      if (req.url === '/readyz') {
        const result = await runChecks(options.checks);
        return send(res, result.ok ? 200 : 503, result);
      }
      if (req.url === '/metrics') {
        res.writeHead(200, { 'content-type': options.registry.contentType });
        return res.end(await options.registry.metrics());
      }
      return send(res, 404, { error: { code: 'ROUTE_NOT_FOUND', message: 'not found' } });
    })().catch(() => send(res, 500, { error: { code: 'INTERNAL', message: 'internal error' } }));
  });
  // A port in use fails start-up instead of crashing the process with an unhandled 'error'.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Runs every check with a 2 s deadline each; reports which failed. */
export async function runChecks(checks: Record<string, ReadinessCheck>): Promise<{ ok: boolean; checks: Record<string, string> }> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref())]);
        return [name, 'ok'] as const;
      } catch (error) {
        return [name, error instanceof Error ? error.message : 'failed'] as const;
      }
    }),
  );
  return { ok: entries.every(([, status]) => status === 'ok'), checks: Object.fromEntries(entries) };
}

function send(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * The readiness checks of a service that uses Redis and PostgreSQL: Redis
 * answers PING, PostgreSQL answers `SELECT 1`.
 */
export function storeChecks(
  redis: { ping(): Promise<unknown> },
  postgres: { $queryRawUnsafe(sql: string): Promise<unknown> },
): Record<string, ReadinessCheck> {
  return {
    redis: async () => void (await redis.ping()),
    postgres: async () => void (await postgres.$queryRawUnsafe('SELECT 1')),
  };
}
