import { createLogger } from '@switchyard/logging';
import { closeOnSignals } from '@switchyard/runtime';
import { loadMatcherConfig } from './config';
import { startMatcher } from './service';

async function main(): Promise<void> {
  const config = loadMatcherConfig();
  const log = createLogger({ service: 'matcher', level: config.LOG_LEVEL });
  const service = await startMatcher(config, log);
  closeOnSignals(service, log);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
