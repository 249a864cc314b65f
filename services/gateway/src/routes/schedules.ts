import { Router, type Request, type Response } from 'express';
import { CreateScheduleRequestSchema, ListScheduleFiresQuerySchema, ScheduleIdSchema, UpdateScheduleRequestSchema } from '@switchyard/contracts';
import type { ScheduleBook, ScheduleCommandContext } from '../commands/schedules';
import { principalOf } from '../http/auth';
import { parseBody, parseInput, parseQuery } from '../http/validate';

const idOf = (req: Request) => parseInput(ScheduleIdSchema, req.params.id, 'schedule id');
const contextOf = (res: Response): ScheduleCommandContext => ({ principal: principalOf(res), correlationId: String(res.locals.requestId) });

/** Schedules under `/v1/workspaces/{ws}/schedules` (docs/schedules.md): parse, call the ScheduleBook, answer. */
export function schedulesRoutes(deps: { scheduleBook: ScheduleBook }): Router {
  const router = Router({ mergeParams: true });
  const book = deps.scheduleBook;

  router.get('/schedules', async (_req, res) => {
    res.json({ schedules: await book.list(principalOf(res)) });
  });

  router.post('/schedules', async (req, res) => {
    res.status(201).json(await book.create(contextOf(res), parseBody(CreateScheduleRequestSchema, req)));
  });

  router.get('/schedules/:id', async (req, res) => {
    res.json(await book.get(principalOf(res), idOf(req)));
  });

  router.patch('/schedules/:id', async (req, res) => {
    const id = idOf(req);
    res.json(await book.update(contextOf(res), id, parseBody(UpdateScheduleRequestSchema, req)));
  });

  router.delete('/schedules/:id', async (req, res) => {
    await book.delete(contextOf(res), idOf(req));
    res.status(204).end();
  });

  router.post('/schedules/:id/fire', async (req, res) => {
    res.status(201).json(await book.fire(contextOf(res), idOf(req)));
  });

  router.get('/schedules/:id/fires', async (req, res) => {
    const id = idOf(req);
    const { limit } = parseQuery(ListScheduleFiresQuerySchema, req);
    res.json({ fires: await book.fires(principalOf(res), id, limit) });
  });

  return router;
}
