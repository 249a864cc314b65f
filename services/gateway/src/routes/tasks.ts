import { Router, type Request, type Response } from 'express';
import { CreateTaskRequestSchema, ListTasksQuerySchema, TaskIdSchema, UpdateTaskRequestSchema, type Task } from '@switchyard/contracts';
import type { TaskCommandContext, TaskLedger } from '../commands/task-ledger';
import { principalOf, requireRole } from '../http/auth';
import { parseBody, parseInput, parseQuery } from '../http/validate';

/** What the task routes need. */
export interface TasksRoutesDeps {
  taskLedger: TaskLedger;
}

const taskIdOf = (req: Request) => parseInput(TaskIdSchema, req.params.id, 'task id');
const contextOf = (res: Response): TaskCommandContext => ({ principal: principalOf(res), correlationId: String(res.locals.requestId) });

/**
 * The workspace task ledger under `/v1/workspaces/{ws}/tasks` (decision
 * 0031): viewers read, members create, claim, complete, cancel, reopen and
 * edit, the creator or an admin deletes. The rules are TaskLedger's.
 */
export function tasksRoutes(deps: TasksRoutesDeps): Router {
  const router = Router({ mergeParams: true });
  const ledger = deps.taskLedger;
  router.use('/tasks', requireRole('viewer'));
  const write = requireRole('member');

  router.post('/tasks', write, async (req, res) => {
    const body = parseBody(CreateTaskRequestSchema, req);
    const task = await ledger.create(contextOf(res), body);
    res.status(201).setHeader('Location', `/v1/workspaces/${task.workspace}/tasks/${task.id}`).json(task);
  });

  router.get('/tasks', async (req, res) => {
    const { blocked, ...query } = parseQuery(ListTasksQuerySchema, req);
    res.json(await ledger.list(principalOf(res), { ...query, ...(blocked === undefined ? {} : { blocked: blocked === 'true' }) }));
  });

  router.get('/tasks/:id', async (req, res) => {
    res.json(await ledger.get(principalOf(res), taskIdOf(req)));
  });

  router.patch('/tasks/:id', write, async (req, res) => {
    const id = taskIdOf(req);
    res.json(await ledger.update(contextOf(res), id, parseBody(UpdateTaskRequestSchema, req)));
  });

  const actions: Record<string, (ctx: TaskCommandContext, id: string) => Promise<Task>> = {
    claim: (ctx, id) => ledger.claim(ctx, id),
    complete: (ctx, id) => ledger.complete(ctx, id),
    cancel: (ctx, id) => ledger.cancel(ctx, id),
    reopen: (ctx, id) => ledger.reopen(ctx, id),
  };
  for (const [action, run] of Object.entries(actions)) {
    router.post(`/tasks/:id/${action}`, write, async (req, res) => {
      res.json(await run(contextOf(res), taskIdOf(req)));
    });
  }

  router.delete('/tasks/:id', write, async (req, res) => {
    await ledger.delete(contextOf(res), taskIdOf(req));
    res.status(204).end();
  });

  return router;
}
