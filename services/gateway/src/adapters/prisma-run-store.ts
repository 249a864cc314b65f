import { z } from 'zod';
import { AppError, CausedBySchema, ErrorCode, RUN_CANCEL_REASONS, RunOriginSchema, RunOutcomeSchema, RunSchema, type RunStatus } from '@switchyard/contracts';
import type { Prisma, PrismaClient } from '@switchyard/db';
import type { NewRun, RunListFilter, RunRecord, RunStore, StopRunResult } from '../ports';

type RunRow = Prisma.RunGetPayload<true>;

const ACTIVE: RunStatus[] = ['running', 'awaiting_approval'];

/** How the JSON columns are read: each is a boundary (another service writes them). */
const StoredJsonSchema = z.object({
  origin: RunOriginSchema,
  causedBy: CausedBySchema.nullable(),
  outcome: RunOutcomeSchema.nullable(),
  error: RunSchema.shape.error,
});

function toRecord(row: RunRow): RunRecord {
  const parsed = StoredJsonSchema.safeParse({ origin: row.origin, causedBy: row.causedBy, outcome: row.outcome, error: row.error });
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
    const row = await this.prisma.run.create({
      data: {
        id: run.id,
        workspaceId: run.workspaceId,
        agentId: run.agentId,
        agentVersion: run.agentVersion,
        originType: run.origin.type,
        origin: json(run.origin),
        eventId: run.eventId,
        eventKind: run.eventKind,
        status: 'queued',
        ...(run.causedBy === null ? {} : { causedBy: json(run.causedBy) }),
        depth: run.depth,
        sessionId: run.sessionId,
        // The agent's run queue lane (decision 0009).
        lane: `agent:${run.agentId}`,
        queuedAt: new Date(),
      },
    });
    return toRecord(row);
  }

  async stop(workspaceId: string, id: string): Promise<StopRunResult> {
    // Each step is conditional on the status it expects. A run can move on
    // between them (queued → running when a runner picks it), so the steps are
    // tried again from the read; a few rounds settle any real interleaving.
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = new Date();
      const [cancelled] = await this.prisma.run.updateManyAndReturn({
        where: { id, workspaceId, status: 'queued' },
        data: { status: 'cancelled', reason: RUN_CANCEL_REASONS.stopped, stopRequested: true, endedAt: now },
      });
      if (cancelled) return { ok: true, run: toRecord(cancelled), action: 'cancelled' };
      const [requested] = await this.prisma.run.updateManyAndReturn({
        where: { id, workspaceId, status: { in: ACTIVE } },
        data: { stopRequested: true },
      });
      if (requested) return { ok: true, run: toRecord(requested), action: 'stop_requested' };
      const current = await this.prisma.run.findFirst({ where: { id, workspaceId }, select: { status: true } });
      if (!current) return { ok: false, reason: 'not_found' };
      if (current.status !== 'queued' && !ACTIVE.includes(current.status)) return { ok: false, reason: 'not_active', status: current.status };
    }
    throw new AppError(ErrorCode.INTERNAL, 'the run kept changing status while being stopped', { id });
  }

  async fail(workspaceId: string, id: string, reason: string, error: { code: string; message: string }): Promise<RunRecord | null> {
    const [row] = await this.prisma.run.updateManyAndReturn({
      where: { id, workspaceId, status: 'queued' },
      data: { status: 'failed', reason, error: json(error), endedAt: new Date() },
    });
    return row ? toRecord(row) : null;
  }
}
