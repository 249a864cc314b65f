import type { PrismaClient } from '@switchyard/db';
import type { AgentUsage, AgentUsageReader } from '../agent-ports';

/** Today's spend (`agent_spend_daily`, the runner's ledger) and queued runs of agents, in one query. */
export class PrismaAgentUsageReader implements AgentUsageReader {
  constructor(private readonly prisma: PrismaClient) {}

  async usageOf(workspaceId: string, agentIds: readonly string[]): Promise<Map<string, AgentUsage>> {
    if (agentIds.length === 0) return new Map();
    const rows = await this.prisma.$queryRawUnsafe<Array<{ id: string; spent: string | null; queued: number }>>(
      `SELECT a.id::text AS id,
              (SELECT s.cost_usd::text FROM agent_spend_daily s
                WHERE s.agent_id = a.id AND s.workspace_id = $1::uuid AND s.day = (now() AT TIME ZONE 'UTC')::date) AS spent,
              (SELECT count(*)::int FROM runs r WHERE r.agent_id = a.id AND r.workspace_id = $1::uuid AND r.status = 'queued') AS queued
         FROM unnest($2::uuid[]) AS a(id)`,
      workspaceId,
      agentIds,
    );
    return new Map(rows.map((row) => [row.id, { spentTodayUsd: Number(row.spent ?? 0), queuedRuns: row.queued }]));
  }
}
