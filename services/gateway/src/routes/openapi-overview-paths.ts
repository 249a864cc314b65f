import { OverviewQuerySchema } from '@switchyard/contracts';
import { ERROR_RESPONSES as errors, jsonResponse as json, queryParameters, WS_PARAMETER as ws } from './openapi-components';
import type { OpenApiPaths } from './openapi-components';
import { WORKSPACE_BASE as base } from './openapi-workspace-paths';

/** The operations overview's path (docs/decisions/0036-overview.md). */
export function overviewPaths(): OpenApiPaths {
  return {
    [`${base}/overview`]: {
      get: {
        operationId: 'getOverview',
        summary:
          "The workspace's operations at a glance (viewer): runs ended per UTC minute by status with their p95 duration, the failure rate, queued runs per lane, " +
          "each agent's spend per UTC day with its perDayUsd, and the pending approvals; throughSeq is the last fact the run counts hold (add the agent.run.* facts after it)",
        parameters: [ws, ...queryParameters(OverviewQuerySchema, { window: 'minutes back from now, the current minute included (5 to 1440)' })],
        responses: { '200': json('OverviewResponse', 'the figures'), ...errors },
      },
    },
  };
}
