import { z } from 'zod';
import { TeammateMemorySchema, TeammateWatchSchema, type IngestItem, type Teammate, type TeammateMemory } from '@switchyard/contracts';
import type { DeliveryCommit } from '@switchyard/core';
import { recordFacts, type PrismaClient, type SqlRunner } from '@switchyard/db';
import { commitTeammateDelivery, stopTeammateTurns } from '@switchyard/runs';
import type { DeliveryTarget, TeammateStore } from '../teammate-ports';

interface TeammateRow {
  id: string;
  name: string;
  agent_id: string;
  session_id: string;
  watch: unknown;
  team: string | null;
  memory: unknown;
  created_at: Date;
  stopped_at: Date | null;
  working: boolean;
  last_run: string | null;
  last_status: string | null;
  last_queued: Date | null;
  turns: number;
  spend: number;
}

const WatchSchema = z.array(TeammateWatchSchema);

/** The roster with what its turns (the runs of its session, all in its session's lane) say: status, last turn, spend. */
const SELECT_SQL = `
SELECT t.id::text, t.name, t.agent_id::text, t.session_id::text, t.watch, t.team, t.memory, t.created_at, t.stopped_at,
       EXISTS (SELECT 1 FROM runs r WHERE r.workspace_id = t.workspace_id AND r.session_id = t.session_id AND r.status IN ('queued', 'running', 'awaiting_approval', 'awaiting_event')) AS working,
       l.id::text AS last_run, l.status::text AS last_status, l.queued_at AS last_queued,
       (SELECT count(*)::int FROM runs r WHERE r.workspace_id = t.workspace_id AND r.session_id = t.session_id) AS turns,
       (SELECT COALESCE(sum((r.outcome->>'costUsd')::float8), 0)::float8 FROM runs r WHERE r.workspace_id = t.workspace_id AND r.session_id = t.session_id) AS spend
FROM teammates t
LEFT JOIN LATERAL (SELECT id, status, queued_at FROM runs r WHERE r.workspace_id = t.workspace_id AND r.session_id = t.session_id ORDER BY queued_at DESC, id DESC LIMIT 1) l ON true
WHERE t.workspace_id = $1::uuid`;

function toTeammate(row: TeammateRow): Teammate {
  return {
    id: row.id,
    name: row.name,
    agentId: row.agent_id,
    sessionId: row.session_id,
    status: row.stopped_at ? 'stopped' : row.working ? 'working' : 'idle',
    watch: WatchSchema.parse(row.watch),
    team: row.team,
    // Null (spawned without, or before memory existed): the defaults.
    memory: TeammateMemorySchema.parse(row.memory ?? {}),
    lastTurn: row.last_run ? { runId: row.last_run, status: row.last_status!, queuedAt: row.last_queued!.toISOString() } : null,
    turns: row.turns,
    spendUsd: row.spend,
    createdAt: row.created_at.toISOString(),
    stoppedAt: row.stopped_at?.toISOString() ?? null,
  };
}

/** The teammates roster on PostgreSQL (`teammates`); every query scoped by workspace (decision 0035). */
export class PrismaTeammateStore implements TeammateStore {
  /**
   * @param hot - where a message's own two statements run (the roster row, the
   * commit): a plain `pg` pool, not Prisma's query compiler (decision 0015),
   * since every message passes here.
   */
  constructor(
    private readonly prisma: PrismaClient,
    private readonly hot: SqlRunner,
  ) {}

  async list(workspaceId: string): Promise<Teammate[]> {
    const rows = await this.prisma.$queryRawUnsafe<TeammateRow[]>(`${SELECT_SQL} ORDER BY t.name`, workspaceId);
    return rows.map(toTeammate);
  }

  async get(workspaceId: string, name: string): Promise<Teammate | null> {
    const rows = await this.prisma.$queryRawUnsafe<TeammateRow[]>(`${SELECT_SQL} AND t.name = $2`, workspaceId, name);
    return rows[0] ? toTeammate(rows[0]) : null;
  }

  async deliveryTarget(workspaceId: string, name: string): Promise<DeliveryTarget | null> {
    const rows = await this.hot.$queryRawUnsafe<Array<{ id: string; name: string; agent_id: string; session_id: string; stopped: boolean }>>(
      `SELECT id::text, name, agent_id::text, session_id::text, stopped_at IS NOT NULL AS stopped FROM teammates WHERE workspace_id = $1::uuid AND name = $2`,
      workspaceId,
      name,
    );
    const row = rows[0];
    return row ? { id: row.id, name: row.name, agentId: row.agent_id, sessionId: row.session_id, stopped: row.stopped } : null;
  }

  async bySession(workspaceId: string, sessionId: string): Promise<Teammate | null> {
    const rows = await this.prisma.$queryRawUnsafe<TeammateRow[]>(`${SELECT_SQL} AND t.session_id = $2::uuid`, workspaceId, sessionId);
    return rows[0] ? toTeammate(rows[0]) : null;
  }

  async create(
    input: { id: string; workspaceId: string; name: string; agentId: string; sessionId: string; watch: unknown; team: string | null; memory: TeammateMemory | null; createdBy: string },
    facts: IngestItem[],
  ): Promise<'created' | 'name_taken'> {
    return this.prisma.$transaction(async (tx) => {
      const inserted = await tx.$executeRawUnsafe(
        `INSERT INTO teammates (id, workspace_id, name, agent_id, session_id, watch, team, created_by, memory)
         VALUES ($1::uuid, $2::uuid, $3, $4::uuid, $5::uuid, $6::jsonb, $7, $8::uuid, $9::jsonb) ON CONFLICT (workspace_id, name) DO NOTHING`,
        input.id,
        input.workspaceId,
        input.name,
        input.agentId,
        input.sessionId,
        JSON.stringify(input.watch),
        input.team,
        input.createdBy,
        input.memory === null ? null : JSON.stringify(input.memory),
      );
      if (inserted === 0) return 'name_taken';
      await recordFacts(tx, facts);
      return 'created';
    });
  }

  async stop(workspaceId: string, name: string, facts: (teammate: { id: string; sessionId: string }) => IngestItem[]): Promise<'stopped' | 'already' | 'not_found'> {
    return this.prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRawUnsafe<Array<{ id: string; session_id: string; stopped_at: Date | null }>>(
        `SELECT id::text, session_id::text, stopped_at FROM teammates WHERE workspace_id = $1::uuid AND name = $2 FOR UPDATE`,
        workspaceId,
        name,
      );
      const row = rows[0];
      if (!row) return 'not_found';
      if (row.stopped_at) return 'already';
      // Under the lane's lock (taken first, as before the teammate row changes): its queued turn
      // cancelled (no claim starts it meanwhile), a running one asked to stop.
      await stopTeammateTurns(tx, row.session_id);
      await tx.$executeRawUnsafe(`UPDATE teammates SET stopped_at = now() WHERE id = $1::uuid`, row.id);
      await recordFacts(tx, facts({ id: row.id, sessionId: row.session_id }));
      return 'stopped';
    });
  }

  /** The shared delivery's commit (libs/core deliverToTeammate): the wake when it woke, and its facts, in one statement. */
  commitDelivery(commit: DeliveryCommit): Promise<string | null> {
    return commitTeammateDelivery(this.hot, { workspaceId: commit.workspaceId, sessionId: commit.mate.sessionId, wake: commit.wake, facts: commit.facts });
  }
}
