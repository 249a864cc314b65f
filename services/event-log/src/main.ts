import { runService } from '@switchyard/runtime';
import { loadEventLogConfig } from './config';
import { startEventLog } from './service';

runService('event-log', () => loadEventLogConfig(), startEventLog);
