import { runService } from '@switchyard/runtime';
import { loadGatewayConfig } from './config';
import { startGateway } from './service';

runService('gateway', () => loadGatewayConfig(), startGateway);
