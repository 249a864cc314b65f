import { createLogger } from '@switchyard/logging';
import { closeOnSignals } from '@switchyard/runtime';
import { loadGatewayConfig } from './config';
import { startGateway } from './service';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const log = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  const gateway = await startGateway(config, log);
  closeOnSignals(gateway, log);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
