import { ListApprovalsQuerySchema } from '@switchyard/contracts';
import {
  ERROR_RESPONSES as errors,
  jsonBody as body,
  jsonResponse as json,
  queryParameters,
  uuidParameter,
  WS_PARAMETER as ws,
} from './openapi-components';
import type { OpenApiPaths } from './openapi-components';
import { WORKSPACE_BASE as base } from './openapi-workspace-paths';

/** The approvals' paths (docs/decisions/0025-approvals.md). */
export function approvalPaths(): OpenApiPaths {
  const approvalId = uuidParameter('id');
  return {
    [`${base}/approvals`]: {
      get: {
        operationId: 'listApprovals',
        summary: 'List approvals, oldest first (viewer)',
        parameters: [ws, ...queryParameters(ListApprovalsQuerySchema, { after: 'the nextCursor of the previous page (an approval id)' })],
        responses: { '200': json('ListApprovalsResponse', 'a page of approvals'), ...errors },
      },
    },
    [`${base}/approvals/{id}`]: {
      get: {
        operationId: 'getApproval',
        summary: 'One approval (viewer); a platform.save_agent call carries proposalEval: the eval of the proposed spec against the running version, or a note that none exists (decision 0058)',
        parameters: [ws, approvalId],
        responses: { '200': json('ApprovalDetail', 'the approval'), ...errors },
      },
    },
    [`${base}/approvals/{id}/decision`]: {
      post: {
        operationId: 'decideApproval',
        summary: "Approve or deny a pending approval (member; a person's token, never an agent's); the run resumes once none of its approvals is pending",
        parameters: [ws, approvalId],
        requestBody: body('DecideApprovalRequest'),
        responses: {
          '200': json('Approval', 'decided'),
          ...errors,
          '409': json('Error', 'APPROVAL_ALREADY_DECIDED: first decision wins; details is the approval as recorded'),
        },
      },
    },
  };
}
