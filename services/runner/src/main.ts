import { createLogger } from '@switchyard/logging';
import { closeOnSignals } from '@switchyard/runtime';
import { loadRunnerConfig } from './config';
import { startRunner } from './service';

async function main(): Promise<void> {
  const config = loadRunnerConfig();
  const log = createLogger({ service: 'runner', level: config.LOG_LEVEL });
  const service = await startRunner(config, log);
  closeOnSignals(service, log);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
