import { runService } from '@switchyard/runtime';
import { loadRunnerConfig } from './config';
import { startRunner } from './service';

runService('runner', () => loadRunnerConfig(), startRunner);
