import { Router, type Response } from 'express';
import { AgentIdSchema, EvalIdSchema as IdSchema, GetEvalSuiteQuerySchema, SaveEvalSuiteRequestSchema, StartEvalRequestSchema } from '@switchyard/contracts';
import { evalGateStateOf, type EvalGateCheck } from '../commands/eval-gate';
import type { EvalRuns } from '../commands/eval-runs';
import type { EvalSuites } from '../commands/eval-suites';
import type { TryCommandContext } from '../commands/try-agent';
import type { AgentStore } from '../agent-ports';
import type { EvalSuiteRecord } from '../eval-ports';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput, parseQuery } from '../http/validate';


const contextOf = (res: Response): TryCommandContext => ({ principal: principalOf(res), correlationId: String(res.locals.requestId) });
const suiteView = (suite: EvalSuiteRecord) => ({ ...suite, createdAt: suite.createdAt.toISOString() });

/**
 * Agent evals (decision 0058): suites (`/eval-suites`, versioned), eval runs
 * started on an agent (`POST /agents/{id}/evals`, member) and read at
 * `/evals/{id}` (viewer), settled on read once their trials ended.
 */
export function evalsRoutes(deps: { evalSuites: EvalSuites; evalRuns: EvalRuns; evalGate: Pick<EvalGateCheck, 'state'>; agents: Pick<AgentStore, 'get'> }): Router {
  const router = Router({ mergeParams: true });
  const write = requireRole('member');
  const read = requireRole('viewer');

  router.post('/eval-suites', write, async (req, res) => {
    const suite = await deps.evalSuites.save(principalOf(res), parseBody(SaveEvalSuiteRequestSchema, req));
    res.status(201).setHeader('Location', `/v1/workspaces/${principalOf(res).workspaceSlug}/eval-suites/${suite.id}`).json(suiteView(suite));
  });

  router.get('/eval-suites', read, async (_req, res) => {
    res.json({ suites: (await deps.evalSuites.list(principalOf(res))).map(suiteView) });
  });

  router.get('/eval-suites/:id', read, async (req, res) => {
    const { version } = parseQuery(GetEvalSuiteQuerySchema, req);
    res.json(suiteView(await deps.evalSuites.get(principalOf(res), parseInput(IdSchema, req.params.id, 'suite id'), version)));
  });

  router.put('/eval-suites/:id', write, async (req, res) => {
    const id = parseInput(IdSchema, req.params.id, 'suite id');
    res.json(suiteView(await deps.evalSuites.save(principalOf(res), parseBody(SaveEvalSuiteRequestSchema, req), id)));
  });

  router.post('/agents/:id/evals', write, async (req, res) => {
    const agentId = parseInput(AgentIdSchema, req.params.id, 'agent id');
    const started = await deps.evalRuns.start(contextOf(res), agentId, parseBody(StartEvalRequestSchema, req));
    res.status(201).setHeader('Location', `/v1/workspaces/${principalOf(res).workspaceSlug}/evals/${started.id}`).json(started);
  });

  router.get('/agents/:id/evals', read, async (req, res) => {
    res.json({ evals: await deps.evalRuns.list(contextOf(res), parseInput(AgentIdSchema, req.params.id, 'agent id')) });
  });

  router.get('/agents/:id/eval-gate', read, async (req, res) => {
    res.json(await evalGateStateOf(deps, principalOf(res), parseInput(AgentIdSchema, req.params.id, 'agent id')));
  });

  router.get('/evals/:id', read, async (req, res) => {
    res.json(await deps.evalRuns.read(contextOf(res), parseInput(IdSchema, req.params.id, 'eval id')));
  });

  return router;
}
