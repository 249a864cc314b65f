import { AUDIT_FACT_KINDS, AuditQuerySchema } from '@switchyard/contracts';
import { ERROR_RESPONSES as errors, jsonResponse as json, queryParameters, WS_PARAMETER as ws } from './openapi-components';
import type { OpenApiPaths } from './openapi-components';
import { WORKSPACE_BASE as base } from './openapi-workspace-paths';

/** The audit trail's reads (decision 0040, docs/audit.md). */
export function auditPaths(): OpenApiPaths {
  return {
    [`${base}/audit`]: {
      get: {
        operationId: 'listAudit',
        summary: `The audit trail, newest first (admin): facts of the audit kinds (${AUDIT_FACT_KINDS.join(', ')}), by actor and kind glob, paged with before`,
        parameters: [
          ws,
          ...queryParameters(AuditQuerySchema, {
            actor: "a person's user id or an agent's id",
            kind: 'kind glob over the audit kinds: * one segment, ** any',
            before: 'a seq: the nextBefore of the previous page',
          }),
        ],
        responses: { '200': json('AuditPage', 'a page of audit entries'), ...errors },
      },
    },
    [`${base}/audit/actors`]: {
      get: {
        operationId: 'listAuditActors',
        summary: 'Everyone who appears in the audit trail, with their name now (admin)',
        parameters: [ws],
        responses: { '200': json('AuditActorsResponse', 'the actors'), ...errors },
      },
    },
  };
}
