import { createLogger } from '@switchyard/logging';
import { closeOnSignals } from '@switchyard/runtime';
import { loadNotifierConfig } from './config';
import { startNotifier } from './service';

async function main(): Promise<void> {
  const config = loadNotifierConfig();
  const log = createLogger({ service: 'notifier', level: config.LOG_LEVEL });
  const service = await startNotifier(config, log);
  closeOnSignals(service, log);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
