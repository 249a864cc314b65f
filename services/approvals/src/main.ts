import { createLogger } from '@switchyard/logging';
import { closeOnSignals } from '@switchyard/runtime';
import { loadApprovalsConfig } from './config';
import { startApprovals } from './service';

async function main(): Promise<void> {
  const config = loadApprovalsConfig();
  const log = createLogger({ service: 'approvals', level: config.LOG_LEVEL });
  const service = await startApprovals(config, log);
  closeOnSignals(service, log);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
