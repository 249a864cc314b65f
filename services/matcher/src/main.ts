import { runService } from '@switchyard/runtime';
import { loadMatcherConfig } from './config';
import { startMatcher } from './service';

runService('matcher', () => loadMatcherConfig(), startMatcher);
