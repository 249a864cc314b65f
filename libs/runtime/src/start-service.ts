import type { Logger } from '@switchyard/logging';
import { once } from '@switchyard/redis';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { startHealthServer, type ReadinessCheck } from './health-server';
import { closeAll, type Closable } from './lifecycle';

/** Something a service closes when it stops: a consumer, a server, a connection's close. */
export type ServicePart = Closable | (() => Promise<void>);

/** What a service's wiring gets from startService. */
export interface ServiceScope {
  /** The service's metrics registry, default metrics included; served at /metrics. */
  readonly registry: Registry;
  /** Adds readiness checks, answered at /readyz. */
  check(checks: Record<string, ReadinessCheck>): void;
  /**
   * Registers a part to close when the service stops, or when its wiring fails.
   * Parts close in the reverse order of registration (the last opened closes
   * first: a consumer before the connection it reads). Returns the part.
   */
  onClose<P extends ServicePart>(part: P): P;
}

/** Options of startService. */
export interface StartServiceOptions {
  /** The service's name, in its started line. */
  name: string;
  /** Port of /healthz, /readyz and /metrics; 0 picks a free one. */
  healthPort: number;
  /** Host the health server binds. */
  host: string;
  log: Logger;
  /** The line logged once the service is up (tests and supervisors wait for it). @defaultValue `<name> started` */
  startedMessage?: string;
}

/** A running service: its health port, its registry and how to stop it. */
export interface RunningService extends Closable {
  healthPort: number;
  registry: Registry;
}

/**
 * How often the event-loop lag is sampled. The sampler is a timer that wakes
 * the process each time, busy or idle: prom-client's default (10 ms) was a
 * hundred wake-ups a second in every service doing nothing.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/** A registry with Node's default metrics (CPU, memory, event-loop lag), as every service serves. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return registry;
}

/**
 * The shape every service follows: `wire` opens the service's connections and
 * starts its work on the given scope (metrics registry, readiness checks,
 * parts to close); then the health server answers /healthz, /readyz and
 * /metrics, and the started line is logged with what `wire` returned. The
 * returned close is memoised (a second SIGTERM or an error path may call it
 * again) and closes the health server, then every part, even when one fails.
 * When `wire` or the health server fails, what was registered is closed and
 * start-up fails with the error.
 */
export async function startService<T extends Record<string, unknown>>(
  options: StartServiceOptions,
  wire: (scope: ServiceScope) => Promise<T>,
): Promise<RunningService & T> {
  const registry = createMetricsRegistry();
  const checks: Record<string, ReadinessCheck> = {};
  const parts: ServicePart[] = [];
  const scope: ServiceScope = {
    registry,
    check: (more) => void Object.assign(checks, more),
    onClose: (part) => {
      parts.unshift(part);
      return part;
    },
  };
  let wired: T;
  let health: Closable & { port: number };
  try {
    wired = await wire(scope);
    health = await startHealthServer({ port: options.healthPort, host: options.host, registry, checks });
  } catch (error) {
    await closeAll(parts).catch((closeError: unknown) => options.log.warn({ err: closeError }, 'cleanup after a failed start failed'));
    throw error;
  }
  const started: Record<string, unknown> = { ...wired, healthPort: health.port };
  options.log.info(started, options.startedMessage ?? `${options.name} started`);
  return { ...wired, healthPort: health.port, registry, close: once(() => closeAll([health, ...parts])) };
}
