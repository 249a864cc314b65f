import { createLogger, type Logger } from '@switchyard/logging';
import { closeOnSignals, type Closable } from './lifecycle';

/**
 * The whole of a service's `main.ts`: load the config (a bad variable stops
 * here, named, before any side effect), create the service's root logger,
 * start it, and close it on SIGTERM/SIGINT. Start-up failures print their
 * message and exit 1.
 */
export function runService<C extends { LOG_LEVEL: string }>(
  name: string,
  loadConfig: () => C,
  start: (config: C, log: Logger) => Promise<Closable>,
): void {
  const main = async () => {
    const config = loadConfig();
    const log = createLogger({ service: name, level: config.LOG_LEVEL });
    const service = start(config, log);
    // Wired before start-up ends: a signal that comes as the service says it is up (a
    // supervisor or a test may act on that line at once) closes it once it started, where
    // the default action of SIGTERM would kill it without closing anything.
    closeOnSignals({ close: async () => (await service).close() }, log);
    await service;
  };
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
