import { z } from 'zod';
import { AppError, CausedBySchema, ErrorCode, RUN_CANCEL_REASONS, RunOriginSchema, RunOutcomeSchema, RunSchema, SubjectSchema } from '@switchyard/contracts';
import type { Prisma, PrismaClient } from '@switchyard/db';
import { closeRunApprovals, lockRunLane } from '@switchyard/runs';
import type { NewRun, RunListFilter, RunRecord, RunStore, StopRunResult } from '../ports';

type RunRow = Prisma.RunGetPayload<true>;

/** How the JSON columns are read: each is a boundary (another service writes them). */
const StoredJsonSchema = z.object({
  origin: RunOriginSchema,
  eventSubject: SubjectSchema.nullable(),
  causedBy: CausedBySchema.nullable(),
  outcome: RunOutcomeSchema.nullable(),
  error: RunSchema.shape.error,
});

/** A `runs` row as the ledger's RunRecord (its JSON columns parsed). */
export function toRecord(row: RunRow): RunRecord {
  const parsed = StoredJsonSchema.safeParse({ origin: row.origin, eventSubject: row.eventSubject, causedBy: row.causedBy, outcome: row.outcome, error: row.error });
  if (!parsed.success) {
    throw new AppError(ErrorCode.INTERNAL, 'stored run has a JSON column this code cannot read', { id: row.id, issues: parsed.error.issues });
  }
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    agentId: row.agentId,
    agentVersion: row.agentVersion,
    eventId: row.eventId,
    eventKind: row.eventKind,
    status: row.status,
    reason: row.reason,
    depth: row.depth,
    sessionId: row.sessionId,
    stopRequested: row.stopRequested,
    queuedAt: row.queuedAt,
    startedAt: row.startedAt,
    endedAt: row.endedAt,
    ...parsed.data,
  };
}

const json = (value: unknown) => value as Prisma.InputJsonValue;

/**
 * The run ledger on PostgreSQL (`runs`). Every query is scoped by workspace
 * id; status changes are conditional updates, so a change racing the runner
 * (which moves runs on from `queued`) never overwrites what it did.
 */
export class PrismaRunStore implements RunStore {
  constructor(private readonly prisma: PrismaClient) {}

  async list(workspaceId: string, options: RunListFilter & { after?: string; limit: number }): Promise<RunRecord[]> {
    const rows = await this.prisma.run.findMany({
      where: {
        workspaceId,
        ...(options.agentId === undefined ? {} : { agentId: options.agentId }),
        ...(options.status === undefined ? {} : { status: options.status }),
        ...(options.eventId === undefined ? {} : { eventId: options.eventId }),
        ...(options.causedByRunId === undefined ? {} : { causedBy: { path: ['runId'], equals: options.causedByRunId } }),
        // Outcomes stored before calls were counted by result have no such path: they do not match.
        ...(options.toolResult === undefined ? {} : { outcome: { path: ['toolCallsByResult', options.toolResult], gt: 0 } }),
        ...(options.after === undefined ? {} : { id: { lt: options.after } }),
      },
      orderBy: { id: 'desc' },
      take: options.limit,
    });
    return rows.map(toRecord);
  }

  async get(workspaceId: string, id: string): Promise<RunRecord | null> {
    const row = await this.prisma.run.findFirst({ where: { id, workspaceId } });
    return row ? toRecord(row) : null;
  }

  async create(run: NewRun): Promise<RunRecord> {
    // The agent's run queue lane (decision 0009).
    const row = await this.prisma.run.create({ data: queuedRunData(run, `agent:${run.agentId}`) });
    return toRecord(row);
  }

  async stop(workspaceId: string, id: string, correlationId: string): Promise<StopRunResult> {
    return this.prisma.$transaction(
      async (tx): Promise<StopRunResult> => {
        // Under the run's lane lock, as the runner changes it (decision 0009): its status cannot move meanwhile.
        await lockRunLane(tx, id);
        const current = await tx.run.findFirst({ where: { id, workspaceId }, select: { status: true } });
        if (!current) return { ok: false, reason: 'not_found' };
        if (current.status === 'queued') {
          const [cancelled] = await tx.run.updateManyAndReturn({
            where: { id, workspaceId, status: 'queued' },
            data: { status: 'cancelled', reason: RUN_CANCEL_REASONS.stopped, stopRequested: true, endedAt: new Date() },
          });
          return { ok: true, run: toRecord(cancelled!), action: 'cancelled', approvalsClosed: 0 };
        }
        if (current.status === 'awaiting_approval') {
          // A parked run has no runner to cancel it: cancelled now, its pending approvals closed by the platform (decision 0028).
          const closed = await closeRunApprovals(tx, [id], correlationId);
          const run = await tx.run.findFirstOrThrow({ where: { id, workspaceId } });
          return { ok: true, run: toRecord(run), action: 'cancelled', approvalsClosed: closed.length };
        }
        if (current.status === 'running') {
          const [requested] = await tx.run.updateManyAndReturn({ where: { id, workspaceId, status: 'running' }, data: { stopRequested: true } });
          return { ok: true, run: toRecord(requested!), action: 'stop_requested', approvalsClosed: 0 };
        }
        return { ok: false, reason: 'not_active', status: current.status };
      },
      { maxWait: 10_000, timeout: 20_000 },
    );
  }

  async activeDescendants(workspaceId: string, id: string): Promise<string[]> {
    // Through runs.caused_by (a run's facts, and the runs an agent token starts, carry the run's id),
    // transitively. A run is always queued after the run that caused it: the queued_at bound keeps
    // each step on the (workspace_id, queued_at) index.
    const rows = await this.prisma.$queryRawUnsafe<Array<{ id: string }>>(
      `WITH RECURSIVE tree(id, queued_at) AS (
         SELECT id, queued_at FROM runs WHERE id = $1::uuid AND workspace_id = $2::uuid
         UNION
         SELECT r.id, r.queued_at FROM tree t
         JOIN runs r ON r.workspace_id = $2::uuid AND r.queued_at >= t.queued_at AND r.caused_by->>'runId' = t.id::text)
       SELECT r.id::text AS id FROM tree JOIN runs r ON r.id = tree.id
       WHERE r.id <> $1::uuid AND r.status IN ('queued', 'running', 'awaiting_approval')
       ORDER BY r.queued_at, r.id`,
      id,
      workspaceId,
    );
    return rows.map((row) => row.id);
  }

  async fail(workspaceId: string, id: string, reason: string, error: { code: string; message: string }): Promise<RunRecord | null> {
    const [row] = await this.prisma.run.updateManyAndReturn({
      where: { id, workspaceId, status: 'queued' },
      data: { status: 'failed', reason, error: json(error), endedAt: new Date() },
    });
    return row ? toRecord(row) : null;
  }
}

/** The row of a new `queued` run in `lane`: what every writer of runs through Prisma inserts. */
export function queuedRunData(run: NewRun, lane: string): Prisma.RunUncheckedCreateInput {
  return {
    id: run.id,
    workspaceId: run.workspaceId,
    agentId: run.agentId,
    agentVersion: run.agentVersion,
    originType: run.origin.type,
    origin: json(run.origin),
    eventId: run.eventId,
    eventKind: run.eventKind,
    ...(run.eventSubject === null ? {} : { eventSubject: json(run.eventSubject) }),
    status: 'queued',
    ...(run.causedBy === null ? {} : { causedBy: json(run.causedBy) }),
    depth: run.depth,
    sessionId: run.sessionId,
    lane,
    queuedAt: new Date(),
  };
}
