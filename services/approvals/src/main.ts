import { runService } from '@switchyard/runtime';
import { loadApprovalsConfig } from './config';
import { startApprovals } from './service';

runService('approvals', () => loadApprovalsConfig(), startApprovals);
