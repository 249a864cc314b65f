import { createLogger } from '@switchyard/logging';
import { shellServiceSuite } from '@switchyard/testing';
import { loadNotifierConfig } from '../src/config';
import { startNotifier } from '../src/service';

const log = createLogger({ service: 'test', level: 'silent' });

shellServiceSuite({ name: 'notifier', healthPortVariable: 'NOTIFIER_HEALTH_PORT', start: (env) => startNotifier(loadNotifierConfig(env), log) });
