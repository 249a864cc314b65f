import type { RequestHandler } from 'express';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { streamGroupStats, type Redis } from '@switchyard/redis';
import { createMetricsRegistry } from '@switchyard/runtime';

/** The gateway's Prometheus registry and its HTTP middleware. */
export interface GatewayMetrics {
  registry: Registry;
  middleware: RequestHandler;
}

/**
 * Request counts and latency by route pattern (never the raw path: ids would
 * explode the label set), plus pending and lag of every group on the given
 * streams, read from Redis at scrape time, on `registry` (the service's, or a
 * new one with the default metrics).
 */
export function createGatewayMetrics(redis: Redis, streams: Record<string, string>, registry: Registry = createMetricsRegistry()): GatewayMetrics {
  const requests = new Counter({
    name: 'switchyard_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'switchyard_http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const labels = ['stream', 'group'] as const;
  // Registered first, so its collect() (which fills all three) runs before any of them is rendered.
  const pending: Gauge<'stream' | 'group'> = new Gauge({
    name: 'switchyard_stream_pending',
    help: 'Entries delivered to a group and not acked',
    labelNames: labels,
    registers: [registry],
    async collect() {
      pending.reset();
      lag.reset();
      for (const [name, key] of Object.entries(streams)) {
        length.set({ stream: name }, await redis.xlen(key));
        for (const group of await streamGroupStats(redis, key)) {
          pending.set({ stream: name, group: group.group }, group.pending);
          if (group.lag !== null) lag.set({ stream: name, group: group.group }, group.lag);
        }
      }
    },
  });
  const lag = new Gauge({ name: 'switchyard_stream_lag', help: 'Entries not yet delivered to the group', labelNames: labels, registers: [registry] });
  const length = new Gauge({ name: 'switchyard_stream_length', help: 'Entries in the stream', labelNames: ['stream'], registers: [registry] });

  // The labelled children, kept: prom-client hashes a label object on every inc/observe, a
  // tenth of the gateway's time per request. Keys are route patterns and statuses: few.
  const children = new Map<string, { count: Counter.Internal; time: Histogram.Internal<'method' | 'route'> }>();
  const childrenOf = (method: string, route: string, status: string) => {
    const key = `${method} ${route} ${status}`;
    let child = children.get(key);
    if (!child) {
      child = { count: requests.labels(method, route, status), time: latency.labels(method, route) };
      children.set(key, child);
    }
    return child;
  };
  const middleware: RequestHandler = (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const child = childrenOf(req.method, routeLabel(req.originalUrl, (req.route as { path?: unknown } | undefined)?.path), String(res.statusCode));
      child.count.inc();
      child.time.observe(Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
  return { registry, middleware };
}

/**
 * The route pattern of a request, never its raw path: `/v1/workspaces/:ws/events/:id`.
 * Workspace routes are mounted under `/v1/workspaces/:ws`, whose slug must not
 * become a label value.
 */
export function routeLabel(originalUrl: string, routePath: unknown): string {
  // A mounted app (bull-board) may route several patterns at once: an array.
  const pattern = Array.isArray(routePath) ? routePath.join('|') : routePath;
  if (typeof pattern !== 'string') return 'unmatched';
  const path = pattern.replace(/\\/g, '');
  return originalUrl.startsWith('/v1/workspaces/') ? `/v1/workspaces/:ws${path}` : path;
}
