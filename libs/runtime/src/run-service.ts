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
    // Wired before start-up begins: a signal that comes while the service starts, or as it
    // says it is up (a supervisor or a test may act on any line at once), closes it once it
    // started, where the default action of SIGTERM would kill it without closing anything.
    const started: { service?: Promise<Closable> } = {};
    closeOnSignals({ close: async () => (await started.service)?.close() }, log);
    started.service = start(config, log);
    await started.service;
  };
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
