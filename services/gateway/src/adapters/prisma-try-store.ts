import { z } from 'zod';
import { AgentSpecSchema, AppError, ErrorCode, ToolEntryContentSchema, type WouldHave } from '@switchyard/contracts';
import type { Prisma, PrismaClient } from '@switchyard/db';
import type { StoredAgentSpec } from '../agent-ports';
import type { RunRecord } from '../run-ports';
import type { NewTry, TryRecord, TryStore } from '../try-ports';
import { createQueuedRun } from '@switchyard/runs';
import { toRecord } from './prisma-run-store';

const json = (value: unknown) => value as Prisma.InputJsonValue;

/** Most wouldHave entries one read returns (a run's tool calls are bounded by its maxTurns). */
const MAX_WOULD_HAVE = 5_000;

/** A captured call as stored in its tool entry: the loop's entry with its arguments. */
const CapturedEntrySchema = ToolEntryContentSchema.extend({ arguments: z.record(z.string(), z.unknown()) });

function readSpec(runId: string, spec: unknown): StoredAgentSpec {
  const parsed = AgentSpecSchema.safeParse(spec);
  if (!parsed.success) throw new AppError(ErrorCode.INTERNAL, 'stored try has a spec this code cannot read', { runId, issues: parsed.error.issues });
  const { enabled: _enabled, ...stored } = parsed.data;
  return stored;
}

/**
 * Try runs on PostgreSQL (decision 0027): the `runs` row and its `agent_tries`
 * record, written together. The run is in a lane of its own (`try:<id>`), so
 * a try never waits behind, nor holds up, its agent's runs; and, being of
 * origin `try`, the runs triggers record no `agent.run.*` fact for it.
 */
export class PrismaTryStore implements TryStore {
  constructor(private readonly prisma: PrismaClient) {}

  async create(input: NewTry): Promise<RunRecord> {
    const { run } = input;
    const [row] = await this.prisma.$transaction([
      // A try's run is in a lane of its own (laneOfNewRun).
      createQueuedRun(this.prisma, run),
      this.prisma.agentTry.create({
        data: {
          runId: run.id,
          workspaceId: run.workspaceId,
          agentId: run.agentId,
          agentVersion: input.version,
          spec: json(input.spec),
          ...(input.fact === null ? {} : { fact: json(input.fact) }),
          createdBy: input.createdBy,
        },
      }),
    ]);
    return toRecord(row);
  }

  async list(workspaceId: string, agentId: string, options: { after?: string; limit: number }): Promise<TryRecord[]> {
    const tries = await this.prisma.agentTry.findMany({
      where: { workspaceId, agentId, ...(options.after === undefined ? {} : { runId: { lt: options.after } }) },
      orderBy: { runId: 'desc' },
      take: options.limit,
    });
    const runs = await this.prisma.run.findMany({ where: { workspaceId, id: { in: tries.map((t) => t.runId) } } });
    const byId = new Map(runs.map((row) => [row.id, toRecord(row)]));
    return tries.flatMap((t) => {
      const run = byId.get(t.runId);
      return run ? [{ run, version: t.agentVersion, spec: readSpec(t.runId, t.spec) }] : [];
    });
  }

  async hasTries(workspaceId: string, agentId: string): Promise<boolean> {
    return (await this.prisma.agentTry.findFirst({ where: { workspaceId, agentId }, select: { runId: true } })) !== null;
  }

  async wouldHave(workspaceId: string, runId: string): Promise<WouldHave[]> {
    const rows = await this.prisma.transcriptEntry.findMany({
      where: { workspaceId, runId, type: 'tool', content: { path: ['wouldHave'], equals: true } },
      orderBy: { seq: 'asc' },
      take: MAX_WOULD_HAVE,
    });
    return rows.map((row) => {
      const parsed = CapturedEntrySchema.safeParse(row.content);
      if (!parsed.success) throw new AppError(ErrorCode.INTERNAL, 'stored tool entry has a shape this code cannot read', { runId, seq: row.seq });
      return { toolCallId: parsed.data.toolCallId, tool: parsed.data.name, arguments: parsed.data.arguments, seq: row.seq, at: row.at.toISOString() };
    });
  }
}
