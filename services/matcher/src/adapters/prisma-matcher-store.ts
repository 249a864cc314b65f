import { AgentSpecSchema, type ActivationJob, type Fact } from '@switchyard/contracts';
import { FACT_COLUMNS, factFromRow, type FactRow, type PrismaClient } from '@switchyard/db';
import type { Logger } from '@switchyard/logging';
import type { AgentRecord } from '../agent-index';
import type { HistoryQuery, MatcherStore, NewTriggerRun, TriggerRunSlot } from '../ports';

/** Marks that a consumer saved cursors once (then a missing workspace row means "from seq 0"). */
const INITIALIZED_MARKER = '00000000-0000-0000-0000-000000000000';

interface AgentRow {
  agent_id: string;
  workspace_id: string;
  version: number;
  enabled: boolean;
  spec: unknown;
}

/** The matcher's queries on PostgreSQL; every row read is parsed at this boundary. */
export class PrismaMatcherStore implements MatcherStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly log: Logger,
  ) {}

  async loadAgents(): Promise<AgentRecord[]> {
    return this.agents('a.deleted_at IS NULL');
  }

  async loadAgent(agentId: string): Promise<AgentRecord | null> {
    const [agent] = await this.agents('a.deleted_at IS NULL AND a.id = $1::uuid', agentId);
    return agent ?? null;
  }

  async loadAgentVersion(agentId: string, version: number, enabled: boolean): Promise<AgentRecord | null> {
    const [agent] = await this.agents('a.id = $1::uuid', agentId, version);
    return agent ? { ...agent, enabled } : null;
  }

  /** Agents with their latest version, or with version `$2` when a second parameter is given. */
  private async agents(where: string, ...params: unknown[]): Promise<AgentRecord[]> {
    const version = params.length > 1 ? '$2' : 'a.latest_version';
    const rows = await this.prisma.$queryRawUnsafe<AgentRow[]>(
      `SELECT a.id::text AS agent_id, a.workspace_id::text AS workspace_id, v.version, a.enabled, v.spec
         FROM agents a JOIN agent_versions v ON v.agent_id = a.id AND v.version = ${version}
        WHERE ${where}`,
      ...params,
    );
    const records: AgentRecord[] = [];
    for (const row of rows) {
      const spec = AgentSpecSchema.safeParse(row.spec);
      if (!spec.success) {
        // A stored spec this version cannot read activates nothing rather than stopping the matcher.
        this.log.error({ agentId: row.agent_id, issues: spec.error.issues }, 'stored agent spec does not parse; agent not indexed');
        continue;
      }
      records.push({ agentId: row.agent_id, workspaceId: row.workspace_id, version: Number(row.version), enabled: row.enabled, spec: spec.data });
    }
    return records;
  }

  async pausedWorkspaces(): Promise<Set<string>> {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ workspace_id: string }>>(
      'SELECT workspace_id::text AS workspace_id FROM workspace_settings WHERE agents_paused',
    );
    return new Set(rows.map((row) => row.workspace_id));
  }

  async isPaused(workspaceId: string): Promise<boolean> {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ agents_paused: boolean }>>(
      'SELECT agents_paused FROM workspace_settings WHERE workspace_id = $1::uuid',
      workspaceId,
    );
    return rows[0]?.agents_paused ?? false;
  }

  async history(input: HistoryQuery) {
    // One round trip; a guard that is off costs nothing ($4/$5 gate its subquery), and the
    // queued count stops at the cap, so the cost does not grow with an agent's history.
    const [row] = await this.prisma.$queryRawUnsafe<
      Array<{ already: boolean; last_kind: Date | null; recent: Date[] | null; queued: bigint }>
    >(
      `SELECT
         EXISTS (SELECT 1 FROM runs WHERE agent_id = $1::uuid AND event_id = $2::uuid AND origin_type = 'trigger') AS already,
         (SELECT max(queued_at) FROM runs WHERE $5::boolean AND agent_id = $1::uuid AND event_kind = $3 AND origin_type = 'trigger' AND status <> 'dropped') AS last_kind,
         (SELECT array_agg(queued_at) FROM runs WHERE $4::timestamptz IS NOT NULL AND agent_id = $1::uuid
             AND origin_type = 'trigger' AND status <> 'dropped' AND queued_at > $4::timestamptz) AS recent,
         (SELECT count(*) FROM (SELECT 1 FROM runs WHERE agent_id = $1::uuid AND status = 'queued' LIMIT $6) q) AS queued`,
      input.agentId,
      input.eventId,
      input.kind,
      input.throttleSince?.toISOString() ?? null,
      input.cooldown,
      input.queueCap,
    );
    return {
      alreadyActivated: row?.already ?? false,
      lastActivationOfKindAt: row?.last_kind ? new Date(row.last_kind).getTime() : undefined,
      recentActivationsAt: (row?.recent ?? []).map((at) => new Date(at).getTime()),
      queuedRuns: Number(row?.queued ?? 0),
    };
  }

  async createTriggerRun(run: NewTriggerRun): Promise<TriggerRunSlot> {
    const inserted = await this.prisma.$queryRawUnsafe<Array<{ id: string }>>(
      `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, event_id, event_kind, status, reason, caused_by, depth, session_id)
       VALUES ($1::uuid, $2::uuid, $3::uuid, $4, 'trigger', $5::jsonb, $6::uuid, $7, $8::"RunStatus", $9, $10::jsonb, $11, $12::uuid)
       ON CONFLICT (agent_id, event_id) WHERE origin_type = 'trigger' DO NOTHING
       RETURNING id::text AS id`,
      run.id, run.workspaceId, run.agentId, run.agentVersion, JSON.stringify(run.origin), run.eventId, run.eventKind,
      run.status, run.reason ?? null, run.causedBy ? JSON.stringify(run.causedBy) : null, run.depth, run.sessionId,
    );
    if (inserted.length > 0) return { created: true, runId: run.id, status: run.status, depth: run.depth };
    const [existing] = await this.prisma.$queryRawUnsafe<Array<{ id: string; status: TriggerRunSlot['status']; depth: number }>>(
      `SELECT id::text AS id, status::text AS status, depth FROM runs WHERE agent_id = $1::uuid AND event_id = $2::uuid AND origin_type = 'trigger'`,
      run.agentId,
      run.eventId,
    );
    return { created: false, runId: existing!.id, status: existing!.status, depth: existing!.depth };
  }

  async queuedRuns(): Promise<ActivationJob[]> {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ id: string; workspace_id: string; agent_id: string }>>(
      `SELECT id::text AS id, workspace_id::text AS workspace_id, agent_id::text AS agent_id FROM runs WHERE status = 'queued' ORDER BY queued_at`,
    );
    return rows.map((row) => ({ schemaVersion: 1, runId: row.id, workspaceId: row.workspace_id, agentId: row.agent_id }));
  }

  async workspaces(): Promise<Array<{ id: string; slug: string }>> {
    return this.prisma.$queryRawUnsafe('SELECT id::text AS id, slug FROM workspaces ORDER BY id');
  }

  async factsAfter(workspace: { id: string; slug: string }, afterSeq: number, limit: number): Promise<Fact[]> {
    const rows = await this.prisma.$queryRawUnsafe<FactRow[]>(
      `SELECT ${FACT_COLUMNS} FROM platform_events WHERE workspace_id = $1::uuid AND seq > $2 ORDER BY seq LIMIT $3`,
      workspace.id,
      afterSeq,
      limit,
    );
    return rows.map((row) => factFromRow(row, workspace.slug));
  }

  async lastSeqs(): Promise<Map<string, number>> {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ workspace_id: string; last_seq: bigint }>>(
      'SELECT workspace_id::text AS workspace_id, last_seq FROM workspace_event_seq',
    );
    return new Map(rows.map((row) => [row.workspace_id, Number(row.last_seq)]));
  }

  async loadCursors(consumer: string): Promise<{ initialized: boolean; cursors: Map<string, number> }> {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ workspace_id: string; last_seq: bigint }>>(
      'SELECT workspace_id::text AS workspace_id, last_seq FROM consumer_cursors WHERE consumer = $1',
      consumer,
    );
    const cursors = new Map(rows.filter((row) => row.workspace_id !== INITIALIZED_MARKER).map((row) => [row.workspace_id, Number(row.last_seq)]));
    return { initialized: rows.some((row) => row.workspace_id === INITIALIZED_MARKER), cursors };
  }

  async saveCursors(consumer: string, cursors: ReadonlyMap<string, number>): Promise<void> {
    const entries = [...cursors.entries(), [INITIALIZED_MARKER, 0] as [string, number]];
    await this.prisma.$executeRawUnsafe(
      `INSERT INTO consumer_cursors (consumer, workspace_id, last_seq, updated_at)
       SELECT $1, w, s, now() FROM unnest($2::uuid[], $3::bigint[]) AS v(w, s)
       ON CONFLICT (consumer, workspace_id) DO UPDATE
         SET last_seq = GREATEST(consumer_cursors.last_seq, EXCLUDED.last_seq), updated_at = now()`,
      consumer,
      entries.map(([workspaceId]) => workspaceId),
      entries.map(([, seq]) => seq),
    );
  }
}
