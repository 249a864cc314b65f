import { z } from 'zod';
import { AgentIdSchema, BackfillBatchIdSchema } from '@switchyard/contracts';
import { ERROR_RESPONSES as errors, jsonBody as body, jsonResponse as json, pathParameter, WS_PARAMETER as ws, type OpenApiPaths } from './openapi-components';
import { WORKSPACE_BASE as base } from './openapi-workspace-paths';

const { $schema: _agentDialect, ...agentIdSchema } = z.toJSONSchema(AgentIdSchema, { io: 'input' });
const { $schema: _batchDialect, ...batchIdSchema } = z.toJSONSchema(BackfillBatchIdSchema, { io: 'input' });
const id = pathParameter('id', agentIdSchema, "the agent's id");
const batchId = pathParameter('batchId', batchIdSchema, "the backfill batch's id");

/** Backfills (docs/schedules.md, decision 0055): members only. */
export function backfillPaths(): OpenApiPaths {
  return {
    [`${base}/agents/{id}/backfill`]: {
      post: {
        operationId: 'backfillAgent',
        summary:
          'Activate the agent once per recorded fact of [from, to] whose kind matches and that passes the filter, as runs of origin backfill under one batch id, never more queued than its queue cap; dryRun: count and estimated cost only, nothing written',
        parameters: [ws, id],
        requestBody: body('BackfillRequest'),
        responses: {
          '200': json('BackfillResponse', 'the dry run'),
          '201': json('BackfillResponse', 'the batch, its first runs started'),
          ...errors,
          '400': json('Error', 'VALIDATION_FAILED (from after to, a kind or filter that does not parse) or BACKFILL_TOO_LARGE; nothing written'),
          '404': json('Error', 'AGENT_NOT_FOUND (also another workspace’s agent)'),
          '409': json('Error', 'AGENT_DISABLED (a dry run is answered); nothing written'),
        },
      },
    },
    [`${base}/agents/{id}/backfills/{batchId}`]: {
      get: {
        operationId: 'getBackfill',
        summary: "A backfill batch: its status (running, done, or stopped with its reason: a person's stop, its agent deleted or disabled), how many runs it has and has started; its runs are GET /runs?batchId=",
        parameters: [ws, id, batchId],
        responses: { '200': json('BackfillBatch', 'the batch'), ...errors, '404': json('Error', 'BACKFILL_NOT_FOUND') },
      },
    },
    [`${base}/agents/{id}/backfills/{batchId}/stop`]: {
      post: {
        operationId: 'stopBackfill',
        summary: 'Stop a backfill as one: no more of its runs start, and each of its live runs is stopped with its causal cascade',
        parameters: [ws, id, batchId],
        responses: { '200': json('BackfillStopResponse', 'the runs stopped'), ...errors, '404': json('Error', 'BACKFILL_NOT_FOUND') },
      },
    },
  };
}
