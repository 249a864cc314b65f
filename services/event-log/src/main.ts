import { createLogger } from '@switchyard/logging';
import { closeOnSignals } from '@switchyard/runtime';
import { loadEventLogConfig } from './config';
import { startEventLog } from './service';

async function main(): Promise<void> {
  const config = loadEventLogConfig();
  const log = createLogger({ service: 'event-log', level: config.LOG_LEVEL });
  const service = await startEventLog(config, log);
  closeOnSignals(service, log);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
