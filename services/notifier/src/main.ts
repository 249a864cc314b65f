import { runService } from '@switchyard/runtime';
import { loadNotifierConfig } from './config';
import { startNotifier } from './service';

runService('notifier', () => loadNotifierConfig(), startNotifier);
