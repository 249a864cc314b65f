import { createLogger } from '@switchyard/logging';
import { shellServiceSuite } from '@switchyard/testing';
import { loadApprovalsConfig } from '../src/config';
import { startApprovals } from '../src/service';

const log = createLogger({ service: 'test', level: 'silent' });

shellServiceSuite({ name: 'approvals', healthPortVariable: 'APPROVALS_HEALTH_PORT', start: (env) => startApprovals(loadApprovalsConfig(env), log) });
