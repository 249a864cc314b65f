import { AGENT_FACT_KINDS } from '@switchyard/contracts';
import type { PrismaClient } from '@switchyard/db';
import type { ActivationReads, AgentFactState, ScheduleFireCause, TeammateFactState } from '../activation-ports';

const CHANGE_KINDS = [AGENT_FACT_KINDS.created, AGENT_FACT_KINDS.updated, AGENT_FACT_KINDS.enabled, AGENT_FACT_KINDS.disabled, AGENT_FACT_KINDS.pinned, AGENT_FACT_KINDS.unpinned];

interface Row {
  agent_id: string;
  name: string;
  runs: AgentFactState['runs'];
  skip: AgentFactState['skip'];
  version: number | null;
  spec: unknown;
  enabled: boolean | null;
  matcher_seq: bigint | number | null;
}

/**
 * What the matcher made of one fact, per agent, in one statement (decision
 * 0034). The version in force is the one the last `agent.*` fact before the
 * fact named for runs (its pin, else its latest: decision 0046) — the matcher applies agent changes in that order; an agent with
 * no such fact at all (written before facts announced agents) falls back to
 * its newest version created before the fact was recorded, and its flag now.
 */
export class PrismaActivationReads implements ActivationReads {
  constructor(private readonly prisma: PrismaClient) {}

  async activationsOf(workspaceId: string, fact: { id: string; seq: number }): Promise<{ matcherSeq: number; agents: AgentFactState[] }> {
    const rows = await this.prisma.$queryRawUnsafe<Row[]>(
      `WITH fact AS (SELECT recorded_at FROM platform_events WHERE workspace_id = $1::uuid AND id = $2::uuid)
       SELECT a.id::text AS agent_id, a.name, runs.runs, skip.skip, v.version, v.spec,
              CASE WHEN facts.any THEN announced.enabled ELSE a.enabled END AS enabled,
              (SELECT last_seq FROM consumer_cursors WHERE consumer = 'matcher' AND workspace_id = $1::uuid) AS matcher_seq
         FROM agents a
         CROSS JOIN fact
         CROSS JOIN LATERAL (SELECT coalesce(jsonb_agg(jsonb_build_object('id', r.id, 'status', r.status, 'reason', r.reason, 'agentVersion', r.agent_version)
                                                       ORDER BY r.queued_at, r.id), '[]'::jsonb) AS runs
                               FROM runs r WHERE r.agent_id = a.id AND r.event_id = $2::uuid AND r.origin_type = 'trigger') runs
         LEFT JOIN LATERAL (SELECT jsonb_build_object('reason', s.reason, 'agentVersion', s.agent_version) AS skip
                              FROM activation_skips s WHERE s.event_id = $2::uuid AND s.agent_id = a.id) skip ON true
         LEFT JOIN LATERAL (SELECT COALESCE((e.payload->>'pinnedVersion')::int, (e.payload->>'version')::int) AS version, (e.payload->>'enabled')::boolean AS enabled FROM platform_events e
                             WHERE e.workspace_id = $1::uuid AND e.kind = ANY($4::text[]) AND e.subject_type = 'agent' AND e.subject_id = a.id::text
                               AND e.seq < $3 ORDER BY e.seq DESC LIMIT 1) announced ON true
         LEFT JOIN LATERAL (SELECT EXISTS (SELECT 1 FROM platform_events e WHERE e.workspace_id = $1::uuid AND e.kind = ANY($4::text[])
                                             AND e.subject_type = 'agent' AND e.subject_id = a.id::text) AS any) facts ON true
         LEFT JOIN LATERAL (SELECT max(version) AS version FROM agent_versions WHERE agent_id = a.id AND created_at <= fact.recorded_at) created ON true
         LEFT JOIN agent_versions v ON v.agent_id = a.id AND v.version = (CASE WHEN facts.any THEN announced.version ELSE created.version END)
        WHERE a.workspace_id = $1::uuid AND (a.deleted_at IS NULL OR jsonb_array_length(runs.runs) > 0)
        ORDER BY a.name, a.id`,
      workspaceId,
      fact.id,
      fact.seq,
      CHANGE_KINDS,
    );
    return {
      matcherSeq: Number(rows[0]?.matcher_seq ?? 0),
      agents: rows.map((row) => ({
        agentId: row.agent_id,
        name: row.name,
        runs: row.runs,
        skip: row.skip,
        inForce: row.version === null ? null : { version: Number(row.version), spec: row.spec, enabled: row.enabled !== false },
      })),
    };
  }

  async teammatesOf(workspaceId: string, fact: { id: string; seq: number; kind: string; causedBy?: { runId: string } | undefined }): Promise<TeammateFactState[]> {
    // In fact order, as the bridge decides: spawned after = its teammate.spawned fact comes later (or is not relayed yet);
    // the last delivery of the kind is of an earlier fact, measured to this fact's recording.
    const rows = await this.prisma.$queryRawUnsafe<Array<Omit<TeammateFactState, 'sinceLastOfKindMs'> & { sinceLastOfKindMs: number | string | null }>>(
      `WITH fact AS (SELECT recorded_at FROM platform_events WHERE workspace_id = $1::uuid AND id = $2::uuid)
       SELECT t.id::text AS "teammateId", t.name, t.team, t.watch, NOT EXISTS (SELECT 1 FROM platform_events e WHERE e.workspace_id = $1::uuid AND e.kind = 'teammate.spawned' AND e.subject_type = 'teammate'
                                                    AND e.subject_id = t.id::text AND e.seq < $3) AS "spawnedAfter", t.stopped_at IS NOT NULL AS stopped,
              CASE WHEN d.message_id IS NULL THEN NULL
                   ELSE jsonb_build_object('messageId', d.message_id, 'runId', d.run_id, 'deliveredAt', to_char(d.delivered_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) END AS delivery,
              EXISTS (SELECT 1 FROM runs r WHERE r.workspace_id = $1::uuid AND r.session_id = t.session_id AND r.id = $5::uuid) AS "ownTurnCaused",
              (SELECT EXTRACT(EPOCH FROM (fact.recorded_at - max(l.delivered_at))) * 1000
                 FROM teammate_deliveries l JOIN platform_events e ON e.workspace_id = $1::uuid AND e.id = l.event_id
                WHERE l.teammate_id = t.id AND l.event_kind = $4 AND e.seq < $3) AS "sinceLastOfKindMs"
         FROM teammates t CROSS JOIN fact
         LEFT JOIN teammate_deliveries d ON d.teammate_id = t.id AND d.event_id = $2::uuid
        WHERE t.workspace_id = $1::uuid
        ORDER BY t.name`,
      workspaceId,
      fact.id,
      fact.seq,
      fact.kind,
      fact.causedBy?.runId ?? null,
    );
    return rows.map((row) => ({ ...row, sinceLastOfKindMs: row.sinceLastOfKindMs === null ? null : Number(row.sinceLastOfKindMs) }));
  }

  async fireOf(workspaceId: string, factId: string): Promise<ScheduleFireCause | null> {
    const [row] = await this.prisma.$queryRawUnsafe<Array<{ schedule_id: string; name: string; slot_at: Date; late: boolean; manual: boolean }>>(
      `SELECT f.schedule_id::text AS schedule_id, s.name, f.slot_at, f.late, f.manual
         FROM schedule_fires f JOIN schedules s ON s.id = f.schedule_id WHERE f.fact_id = $1::uuid AND f.workspace_id = $2::uuid`,
      factId,
      workspaceId,
    );
    return row ? { scheduleId: row.schedule_id, name: row.name, slotAt: row.slot_at.toISOString(), late: row.late, manual: row.manual } : null;
  }
}
