import { AgentSpecSchema, TeammateWatchSchema, type ActivationJob, type Fact } from '@switchyard/contracts';
import { FACT_COLUMNS, factFromRow, type FactRow, type SqlRunner } from '@switchyard/db';
import { insertTriggerRuns, type TriggerRunRow } from '@switchyard/runs';
import type { Logger } from '@switchyard/logging';
import type { AgentRecord, TeammateRecord } from '../agent-index';
import { ORDERED_KINDS, pairKey, type ActivationSkipRecord, type AgentHistory, type AgentHistoryQuery, type MatcherStore, type TriggerRunSlot } from '../ports';

interface SlotRow {
  id: string;
  agent_id: string;
  event_id: string;
  status: TriggerRunSlot['status'];
  depth: number;
}

/** One agent's queued count and recent activations, as `batchHistory` reads them (JSON). */
interface PerAgentRow {
  agent_id: string;
  queued: number | string;
  recent: string[] | null;
}

/** One agent's last activation for a kind (JSON). */
interface LastByKindRow {
  agent_id: string;
  kind: string;
  last: string | null;
}

function toSlot(row: SlotRow, created: boolean): TriggerRunSlot {
  return { created, runId: row.id, status: row.status, depth: Number(row.depth) };
}

/** The kinds of the facts that change what the matcher's index matches. */

const WatchSchema = TeammateWatchSchema.array();

interface TeammateRow {
  id: string;
  workspace_id: string;
  name: string;
  agent_id: string;
  session_id: string;
  watch: unknown;
}

/** Marks that a consumer saved cursors once (then a missing workspace row means "from seq 0"). */
const INITIALIZED_MARKER = '00000000-0000-0000-0000-000000000000';

interface AgentRow {
  agent_id: string;
  workspace_id: string;
  version: number;
  latest_version: number;
  enabled: boolean;
  spec: unknown;
}

/** The matcher's queries on PostgreSQL (raw SQL on a `pg` pool: decision 0015); every row read is parsed at this boundary. */
export class SqlMatcherStore implements MatcherStore {
  constructor(
    private readonly prisma: SqlRunner,
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

  /** Agents with their version for runs (pinned, else latest: decision 0046), or with version `$2` when a second parameter is given. */
  private async agents(where: string, ...params: unknown[]): Promise<AgentRecord[]> {
    const version = params.length > 1 ? '$2' : 'COALESCE(a.pinned_version, a.latest_version)';
    const rows = await this.prisma.$queryRawUnsafe<AgentRow[]>(
      `SELECT a.id::text AS agent_id, a.workspace_id::text AS workspace_id, v.version, a.latest_version, a.enabled, v.spec
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
      const record = { agentId: row.agent_id, workspaceId: row.workspace_id, version: Number(row.version), enabled: row.enabled, spec: spec.data };
      records.push(params.length > 1 ? record : { ...record, latestVersion: Number(row.latest_version) });
    }
    return records;
  }

  async loadTeammates(): Promise<TeammateRecord[]> {
    return this.teammates('stopped_at IS NULL');
  }

  async loadTeammate(teammateId: string): Promise<TeammateRecord | null> {
    const [teammate] = await this.teammates('id = $1::uuid', teammateId);
    return teammate ?? null;
  }

  private async teammates(where: string, ...params: unknown[]): Promise<TeammateRecord[]> {
    const rows = await this.prisma.$queryRawUnsafe<TeammateRow[]>(
      `SELECT id::text, workspace_id::text, name, agent_id::text, session_id::text, watch FROM teammates WHERE ${where}`,
      ...params,
    );
    const records: TeammateRecord[] = [];
    for (const row of rows) {
      const watch = WatchSchema.safeParse(row.watch);
      if (!watch.success) {
        // A stored watch this version cannot read delivers nothing rather than stopping the matcher.
        this.log.error({ teammateId: row.id, issues: watch.error.issues }, 'stored teammate watch does not parse; teammate not indexed');
        continue;
      }
      records.push({ teammateId: row.id, workspaceId: row.workspace_id, name: row.name, agentId: row.agent_id, sessionId: row.session_id, watch: watch.data });
    }
    return records;
  }

  async pausedWorkspaces(): Promise<Set<string>> {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ workspace_id: string }>>(
      'SELECT workspace_id::text AS workspace_id FROM workspace_settings WHERE agents_paused',
    );
    return new Set(rows.map((row) => row.workspace_id));
  }

  async changesBetween(ranges: ReadonlyArray<{ workspaceId: string; afterSeq: number; uptoSeq: number }>): Promise<Array<{ workspaceId: string; fact: Fact }>> {
    // Per workspace and kind a range of the (workspace_id, kind, seq) index: a few rows, whatever the fact rate.
    // OFFSET 0 keeps the lateral subquery a probe per (workspace, kind): flattened, the generic
    // plan scanned every fact of the table per batch.
    const rows = await this.prisma.$queryRawUnsafe<Array<FactRow & { slug: string }>>(
      `SELECT e.*, (SELECT slug FROM workspaces WHERE workspaces.id = q_ws) AS slug
         FROM unnest($1::uuid[], $2::bigint[], $3::bigint[]) AS q(q_ws, q_after, q_upto)
        CROSS JOIN unnest($4::text[]) AS k(q_kind)
        CROSS JOIN LATERAL (SELECT ${FACT_COLUMNS} FROM platform_events
                             WHERE workspace_id = q_ws AND kind = q_kind AND seq > q_after AND seq <= q_upto OFFSET 0) e
        ORDER BY e.workspace_id, e.seq`,
      ranges.map((range) => range.workspaceId),
      ranges.map((range) => range.afterSeq),
      ranges.map((range) => range.uptoSeq),
      [...ORDERED_KINDS],
    );
    return rows.map((row) => ({ workspaceId: row.workspace_id, fact: factFromRow(row, row.slug) }));
  }


  async batchHistory(
    queries: readonly AgentHistoryQuery[],
    pairs: ReadonlyArray<{ agentId: string; eventId: string }>,
  ): Promise<{ histories: Map<string, AgentHistory>; existing: Map<string, TriggerRunSlot> }> {
    const histories = new Map<string, AgentHistory>(
      queries.map((query) => [query.agentId, { lastActivationOfKindAt: new Map(), recentActivationsAt: [], queuedRuns: 0 }]),
    );
    const kinds = queries.flatMap((query) => query.cooldownKinds.map((kind) => [query.agentId, kind] as const));
    // One round trip for the batch: each part over all agents (unnest), as JSON. A guard that is
    // off is not asked (no kinds, no throttleSince), and the queued count stops at the cap.
    const [row] = await this.prisma.$queryRawUnsafe<Array<{ per_agent: PerAgentRow[]; last_by_kind: LastByKindRow[]; existing: SlotRow[] }>>(
      `SELECT
         (SELECT coalesce(json_agg(h), '[]') FROM (
            SELECT q.a::text AS agent_id,
              (SELECT count(*) FROM (SELECT 1 FROM runs WHERE agent_id = q.a AND status = 'queued' LIMIT q.cap) c) AS queued,
              (SELECT array_agg(queued_at) FROM runs WHERE q.since IS NOT NULL AND agent_id = q.a
                  AND origin_type = 'trigger' AND status <> 'dropped' AND queued_at > q.since) AS recent
            FROM unnest($1::uuid[], $2::int[], $3::timestamptz[]) AS q(a, cap, since)) h) AS per_agent,
         (SELECT coalesce(json_agg(k), '[]') FROM (
            SELECT k.a::text AS agent_id, k.kind,
              (SELECT max(queued_at) FROM runs WHERE agent_id = k.a AND event_kind = k.kind AND origin_type = 'trigger' AND status <> 'dropped') AS last
            FROM unnest($4::uuid[], $5::text[]) AS k(a, kind)) k) AS last_by_kind,
         (SELECT coalesce(json_agg(e), '[]') FROM (
            SELECT r.id::text AS id, r.agent_id::text AS agent_id, r.event_id::text AS event_id, r.status::text AS status, r.depth
              FROM unnest($6::uuid[], $7::uuid[]) AS p(a, e)
              JOIN runs r ON r.agent_id = p.a AND r.event_id = p.e AND r.origin_type = 'trigger') e) AS existing`,
      queries.map((query) => query.agentId),
      queries.map((query) => query.queueCap),
      queries.map((query) => query.throttleSince?.toISOString() ?? null),
      kinds.map(([agentId]) => agentId),
      kinds.map(([, kind]) => kind),
      pairs.map((pair) => pair.agentId),
      pairs.map((pair) => pair.eventId),
    );
    for (const agent of row?.per_agent ?? []) {
      const history = histories.get(agent.agent_id)!;
      history.queuedRuns = Number(agent.queued);
      history.recentActivationsAt = (agent.recent ?? []).map((at) => new Date(at).getTime());
    }
    for (const kind of row?.last_by_kind ?? []) {
      if (kind.last) histories.get(kind.agent_id)!.lastActivationOfKindAt.set(kind.kind, new Date(kind.last).getTime());
    }
    const existing = new Map((row?.existing ?? []).map((slot) => [pairKey(slot.agent_id, slot.event_id), toSlot(slot, false)]));
    return { histories, existing };
  }

  async existingRuns(pairs: ReadonlyArray<{ agentId: string; eventId: string }>): Promise<Map<string, TriggerRunSlot>> {
    if (pairs.length === 0) return new Map();
    const rows = await this.prisma.$queryRawUnsafe<SlotRow[]>(
      `SELECT r.id::text AS id, r.agent_id::text AS agent_id, r.event_id::text AS event_id, r.status::text AS status, r.depth
         FROM unnest($1::uuid[], $2::uuid[]) AS p(a, e)
         JOIN runs r ON r.agent_id = p.a AND r.event_id = p.e AND r.origin_type = 'trigger'`,
      pairs.map((pair) => pair.agentId),
      pairs.map((pair) => pair.eventId),
    );
    return new Map(rows.map((row) => [pairKey(row.agent_id, row.event_id), toSlot(row, false)]));
  }

  async recordTriggerRuns(rows: readonly TriggerRunRow[]): Promise<Array<TriggerRunSlot | null>> {
    if (rows.length === 0) return [];
    const recorded = await insertTriggerRuns(this.prisma, rows);
    // A pair another matcher recorded after the statement's snapshot: left as it is and read back here.
    const lost = rows.filter((row, i) => recorded[i] === null && row.probe !== true).map((row) => row.run);
    const existing = await this.existingRuns(lost);
    return rows.map((row, i) => {
      const slot = recorded[i];
      if (slot) return { created: slot.created, runId: slot.id, status: slot.status as TriggerRunSlot['status'], depth: slot.depth };
      return row.probe === true ? null : existing.get(pairKey(row.run.agentId, row.run.eventId))!;
    });
  }

  async recordSkips(skips: readonly ActivationSkipRecord[]): Promise<void> {
    if (skips.length === 0) return;
    // DISTINCT ON: a batch may decide one pair twice (a redelivered fact); the last decision stands.
    await this.prisma.$executeRawUnsafe(
      `INSERT INTO activation_skips (event_id, agent_id, workspace_id, agent_version, reason)
       SELECT DISTINCT ON (event, agent) event, agent, ws, ver, reason
         FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::int[], $5::text[]) WITH ORDINALITY AS t(event, agent, ws, ver, reason, ord)
        ORDER BY event, agent, ord DESC
       ON CONFLICT (event_id, agent_id) DO UPDATE SET agent_version = EXCLUDED.agent_version, reason = EXCLUDED.reason, decided_at = now()`,
      skips.map((skip) => skip.eventId),
      skips.map((skip) => skip.agentId),
      skips.map((skip) => skip.workspaceId),
      skips.map((skip) => skip.agentVersion),
      skips.map((skip) => skip.reason),
    );
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
