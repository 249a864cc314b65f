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
    closeOnSignals(await start(config, log), log);
  };
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
