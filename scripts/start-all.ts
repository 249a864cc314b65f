/**
 * Every service in one process: what `npm start` runs (through scripts/start.mjs,
 * which provides Redis and PostgreSQL first). Wiring only, like each service's
 * main.ts: config → logger → start → signals. Each service keeps its own
 * config, logger (`service` field) and health port, exactly as in its own
 * container, so behaviour does not depend on how services are packaged.
 */
import { BaseEnvSchema, loadConfig } from '@switchyard/config';
import { createLogger, type Logger } from '@switchyard/logging';
import { closeAll, closeOnSignals, type Closable } from '@switchyard/runtime';
import { loadApprovalsConfig } from '../services/approvals/src/config';
import { startApprovals } from '../services/approvals/src/service';
import { loadEventLogConfig } from '../services/event-log/src/config';
import { startEventLog } from '../services/event-log/src/service';
import { loadGatewayConfig } from '../services/gateway/src/config';
import { startGateway } from '../services/gateway/src/service';
import { loadMatcherConfig } from '../services/matcher/src/config';
import { startMatcher } from '../services/matcher/src/service';
import { loadNotifierConfig } from '../services/notifier/src/config';
import { startNotifier } from '../services/notifier/src/service';
import { loadRunnerConfig } from '../services/runner/src/config';
import { startRunner } from '../services/runner/src/service';

/** Loads a service's config (throwing before any side effect) and names its starter. */
function service<C extends { LOG_LEVEL: string }>(
  name: string,
  load: () => C,
  start: (config: C, log: Logger) => Promise<Closable>,
): { name: string; start: () => Promise<Closable> } {
  const config = load();
  return { name, start: () => start(config, createLogger({ service: name, level: config.LOG_LEVEL })) };
}

/** The address of a listen that failed with EADDRINUSE, else null. */
function portInUse(error: unknown): { address: string; port: number } | null {
  const failure = error as { code?: unknown; address?: unknown; port?: unknown };
  if (failure?.code !== 'EADDRINUSE') return null;
  return { address: String(failure.address ?? '127.0.0.1'), port: Number(failure.port) };
}

async function main(): Promise<void> {
  // The runner calls the platform's own tools at this process's gateway unless told otherwise.
  process.env.PLATFORM_MCP_URL ??= `http://127.0.0.1:${process.env.PORT ?? 8080}/mcp`;
  // Every config is parsed before anything starts, so a bad variable stops start-up cleanly.
  const services = [
    // The event-log first: it is the one writer of facts, and the gateway last, so that
    // nothing is accepted before the services behind it are up.
    service('event-log', loadEventLogConfig, startEventLog),
    service('matcher', loadMatcherConfig, startMatcher),
    service('runner', loadRunnerConfig, startRunner),
    service('approvals', loadApprovalsConfig, startApprovals),
    service('notifier', loadNotifierConfig, startNotifier),
    service('gateway', loadGatewayConfig, startGateway),
  ];
  const log = createLogger({ service: 'start-all', level: loadConfig(BaseEnvSchema).LOG_LEVEL });
  const started: Closable[] = [];
  let stopping = false;
  let starting: Promise<unknown> = Promise.resolve();
  // Stop in reverse order: the gateway stops taking requests before the services behind it go.
  // A stop during start-up starts nothing more and waits for the service being started.
  const all: Closable = {
    close: async () => {
      stopping = true;
      await starting.catch(() => undefined);
      await closeAll([...started].reverse());
    },
  };
  // Wired before the first start, as runService does: a signal during start-up closes what
  // started, where the default action of SIGTERM would kill the process without closing anything.
  closeOnSignals(all, log);
  for (const { name, start } of services) {
    if (stopping) return;
    try {
      starting = start().then((service) => started.push(service));
      await starting;
    } catch (error) {
      const port = portInUse(error);
      // A port taken is the operator's to fix, not a defect: its line says which, without a stack.
      if (port) log.error({ failed: name, port: port.port, address: port.address }, 'a port is in use; stopping the others');
      else log.error({ err: error, failed: name }, 'a service failed to start; stopping the others');
      await all.close().catch(() => undefined);
      throw port ? new Error(`${name}: ${port.address}:${port.port} is already in use by another program: stop it, or choose another port (PORT, <SERVICE>_HEALTH_PORT)`) : error;
    }
  }
  log.info({ services: services.map(({ name }) => name) }, 'all services started');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
