import { ApprovalsEnvSchema } from '../../services/approvals/src/config';
import { EventLogEnvSchema } from '../../services/event-log/src/config';
import { GatewayEnvSchema } from '../../services/gateway/src/config';
import { MatcherEnvSchema } from '../../services/matcher/src/config';
import { NotifierEnvSchema } from '../../services/notifier/src/config';
import { RunnerEnvSchema } from '../../services/runner/src/config';
import type { ServiceEnv } from './config-table';

/** Every service's env schema, in the order the README's configuration table lists them. */
export const SERVICE_ENVS: readonly ServiceEnv[] = [
  { service: 'gateway', schema: GatewayEnvSchema, sources: ['services/gateway/src'] },
  { service: 'event-log', schema: EventLogEnvSchema, sources: ['services/event-log/src'] },
  { service: 'matcher', schema: MatcherEnvSchema, sources: ['services/matcher/src'] },
  { service: 'runner', schema: RunnerEnvSchema, sources: ['services/runner/src'] },
  { service: 'approvals', schema: ApprovalsEnvSchema, sources: ['services/approvals/src'] },
  { service: 'notifier', schema: NotifierEnvSchema, sources: ['services/notifier/src'] },
];
