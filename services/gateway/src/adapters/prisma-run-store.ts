import { z } from 'zod';
import { AppError, CausedBySchema, ErrorCode, RunOriginSchema, RunOutcomeSchema, RunSchema, SubjectSchema } from '@switchyard/contracts';
import type { PrismaClient } from '@switchyard/db';
import { activeDescendants, createQueuedRun, failQueuedRun, stopRun, type RunRow } from '@switchyard/runs';
import type { NewRun, RunListFilter, RunRecord, RunStore, StopRunResult } from '../run-ports';

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

/**
 * The run ledger on PostgreSQL (`runs`), as the gateway reads it. Every query
 * is scoped by workspace id. Its changes — create, stop and its cascade, the
 * failure of a run whose wake was lost — are libs/runs's (decision 0044).
 */
export class PrismaRunStore implements RunStore {
  constructor(private readonly prisma: PrismaClient) {}

  async list(workspaceId: string, options: RunListFilter & { after?: string; limit: number }): Promise<RunRecord[]> {
    const rows = await this.prisma.run.findMany({
      where: {
        workspaceId,
        ...(options.agentId === undefined ? {} : { agentId: options.agentId }),
        ...(options.status === undefined ? {} : { status: options.status }),
        ...(options.agentVersion === undefined ? {} : { agentVersion: options.agentVersion }),
        ...(options.eventId === undefined ? {} : { eventId: options.eventId }),
        ...(options.causedByRunId === undefined ? {} : { causedBy: { path: ['runId'], equals: options.causedByRunId } }),
        ...(options.batchId === undefined ? {} : { originType: 'backfill', origin: { path: ['batchId'], equals: options.batchId } }),
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
    return toRecord(await createQueuedRun(this.prisma, run));
  }

  async stop(workspaceId: string, id: string, correlationId: string): Promise<StopRunResult> {
    const stopped = await stopRun(this.prisma, workspaceId, id, correlationId);
    if (!stopped.ok) return stopped;
    return { ok: true, run: toRecord(stopped.row), action: stopped.action, approvalsClosed: stopped.approvalsClosed };
  }

  async activeDescendants(workspaceId: string, id: string): Promise<string[]> {
    return activeDescendants(this.prisma, workspaceId, id);
  }

  async fail(workspaceId: string, id: string, reason: string, error: { code: string; message: string }): Promise<RunRecord | null> {
    const row = await failQueuedRun(this.prisma, workspaceId, id, reason, error);
    return row ? toRecord(row) : null;
  }
}
