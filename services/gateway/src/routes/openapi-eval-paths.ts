import { GetEvalSuiteQuerySchema } from '@switchyard/contracts';
import { ERROR_RESPONSES as errors, jsonBody as body, jsonResponse as json, queryParameters, uuidParameter, WS_PARAMETER as ws } from './openapi-components';
import type { OpenApiPaths } from './openapi-components';
import { WORKSPACE_BASE as base } from './openapi-workspace-paths';

/** Agent evals' paths (docs/decisions/0058-agent-evals.md). */
export function evalPaths(): OpenApiPaths {
  const id = uuidParameter('id');
  return {
    [`${base}/eval-suites`]: {
      post: {
        operationId: 'createEvalSuite',
        summary: "A new eval suite at version 1 (member): cases of a recorded fact (factId, this workspace's: else 404 EVENT_NOT_FOUND, nothing written) or a hand-built fact, with expectations",
        parameters: [ws],
        requestBody: body('SaveEvalSuiteRequest'),
        responses: { '201': json('EvalSuite', 'the suite; Location is its URL'), ...errors },
      },
      get: { operationId: 'listEvalSuites', summary: "The workspace's suites, each at its latest version (viewer)", parameters: [ws], responses: { '200': json('ListEvalSuitesResponse', 'the suites'), ...errors } },
    },
    [`${base}/eval-suites/{id}`]: {
      get: {
        operationId: 'getEvalSuite',
        summary: 'A suite at its latest version, or at ?version= (viewer; 404 EVAL_SUITE_NOT_FOUND)',
        parameters: [ws, id, ...queryParameters(GetEvalSuiteQuerySchema)],
        responses: { '200': json('EvalSuite', 'the suite'), ...errors },
      },
      put: {
        operationId: 'saveEvalSuite',
        summary: "The suite's next version (member): the whole suite, as on create",
        parameters: [ws, id],
        requestBody: body('SaveEvalSuiteRequest'),
        responses: { '200': json('EvalSuite', 'the new version'), ...errors },
      },
    },
    [`${base}/agents/{id}/evals`]: {
      post: {
        operationId: 'startEval',
        summary:
          "Run a suite's cases as shadow tries, trials times per case at versions [A, B] (or one, or the current version against a draft) (member; an agent token only for an agent whose spec allows it, else 403 SELF_IMPROVEMENT_NOT_ALLOWED): 404 EVAL_SUITE_NOT_FOUND, 400 EVAL_BUDGET_EXCEEDED when the ceiling estimate (runs and judge calls) exceeds budgetUsd — nothing started",
        parameters: [ws, id],
        requestBody: body('StartEvalRequest'),
        responses: { '201': json('StartEvalResponse', 'the eval run; Location is its URL'), ...errors, '409': json('Error', 'AGENTS_PAUSED') },
      },
      get: { operationId: 'listEvals', summary: "The agent's eval runs, newest first (viewer)", parameters: [ws, id], responses: { '200': json('ListEvalRunsResponse', 'the eval runs'), ...errors } },
    },
    [`${base}/agents/{id}/eval-gate`]: {
      get: {
        operationId: 'getEvalGate',
        summary: 'The promotion gate of the version the agent runs (its pin, else its latest): the gate of its latest spec, the newest eval that counts, and whether enabling or pinning it is allowed without an override (viewer; 404 AGENT_NOT_FOUND)',
        parameters: [ws, id],
        responses: { '200': json('EvalGateState', 'the gate state'), ...errors },
      },
    },
    [`${base}/evals/{id}`]: {
      get: {
        operationId: 'getEval',
        summary: 'An eval run: progress, and once every trial ended its per-case results, pass rates, the diff (p, q, changed) and the verdict (viewer; 404 EVAL_NOT_FOUND)',
        parameters: [ws, id],
        responses: { '200': json('EvalRun', 'the eval run'), ...errors },
      },
    },
    [`${base}/evals/{id}/stream`]: {
      get: {
        operationId: 'streamEval',
        summary:
          "Server-Sent Events of an eval run's progress (viewer): event trial (EvalStreamEvent) as each trial's run ends, then event verdict with the settled eval, and the stream ends; resume with Last-Event-ID (404 EVAL_NOT_FOUND; a cursor of another eval 400)",
        parameters: [ws, id, { name: 'Last-Event-ID', in: 'header', schema: { type: 'string' } }],
        responses: { '200': { description: 'text/event-stream of EvalStreamEvent (`event:` its type, `data:` the event)', content: { 'text/event-stream': { schema: { $ref: '#/components/schemas/EvalStreamEvent' } } } }, ...errors },
      },
    },
  };
}
