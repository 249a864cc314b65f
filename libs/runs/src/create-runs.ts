import { ACTIVATION_DROP_REASONS, type CausedBy, type RunOrigin, type RunStatus, type Subject } from '@switchyard/contracts';
import type { Prisma, PrismaClient, SqlRunner } from '@switchyard/db';
import { agentLane, sessionLane, tryLane } from './lanes';

/**
 * Creating runs (decision 0044): every way a run comes to be `queued` (or, for a trigger run a
 * guard refused, `dropped`) is here or in SQL `teammate_wake`. Each insert's `agent.run.*` fact is
 * written by the runs trigger in the same transaction. The caller wakes the runs' lanes after the
 * commit (wake.ts).
 */

/** A manual run, a retry, a delegated run or a try: what a new `queued` run is made of. */
export interface NewRun {
  id: string;
  workspaceId: string;
  agentId: string;
  agentVersion: number;
  origin: RunOrigin;
  /** The fact that started it (trigger runs and their retries, a try of a recorded fact). */
  eventId: string | null;
  eventKind: string | null;
  /** That fact's subject, kept with its kind (what the fleet shows of the trigger). */
  eventSubject: Subject | null;
  causedBy: CausedBy | null;
  depth: number;
  sessionId: string;
}

/** A run a fact activated (the matcher's batch): `queued`, or `dropped` by a guard with its reason. */
export interface NewTriggerRun {
  id: string;
  workspaceId: string;
  agentId: string;
  agentVersion: number;
  origin: Extract<RunOrigin, { type: 'trigger' }>;
  eventId: string;
  eventKind: string;
  eventSubject: Subject;
  status: Extract<RunStatus, 'queued' | 'dropped'>;
  reason?: string;
  causedBy?: CausedBy;
  depth: number;
  sessionId: string;
}

/**
 * The lane a new run goes to: a try's own; a crafting turn its conversation's (one message at a
 * time per conversation, any number of conversations at once, decision 0056); else its agent's.
 */
export function laneOfNewRun(run: Pick<NewRun, 'id' | 'agentId' | 'origin' | 'sessionId'>): string {
  if (run.origin.type === 'try') return tryLane(run.id);
  if (run.origin.type === 'craft') return sessionLane(run.sessionId);
  return agentLane(run.agentId);
}

const json = (value: unknown) => value as Prisma.InputJsonValue;

/**
 * Inserts a `queued` run through Prisma: a manual run, a retry, a delegated run, a try. Returns
 * the client's pending create, so that a caller can batch it in `$transaction([...])` with the
 * rows written with it (a try's `agent_tries`).
 */
export function createQueuedRun(db: Pick<PrismaClient, 'run'>, run: NewRun): Prisma.PrismaPromise<Prisma.RunGetPayload<true>> {
  return db.run.create({
    data: {
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
      lane: laneOfNewRun(run),
      queuedAt: new Date(),
    },
  });
}

/** A trigger run the matcher's batch records, or only looks for (`probe`). */
export interface TriggerRunRow {
  run: NewTriggerRun;
  /**
   * A `queued` run is recorded `dropped` (reason `queue_full`) when the agent already has this
   * many queued runs, counting the batch's rows before it; unset: the status is the caller's.
   */
  queueCap?: number;
  /** Only the run that exists for (agent, fact) is wanted: nothing is inserted. */
  probe?: boolean;
}

/** A run found or made for a row of insertTriggerRuns. */
export interface TriggerRunRecorded {
  id: string;
  status: NewTriggerRun['status'] | string;
  depth: number;
  created: boolean;
}

/**
 * The matcher's batch of trigger runs in one statement (decision 0044), each in its agent's
 * lane: the run that exists for a row's (agent, fact) is returned as it is; otherwise the row's
 * run is inserted (not a probe's), its queue cap decided here, and returned as made. Returns one
 * entry per row, in order; null when there was no run and none was made — a probe, or a pair
 * another matcher recorded after this statement's snapshot (the partial unique index kept it
 * out; the caller reads it).
 */
export async function insertTriggerRuns(sql: SqlRunner, rows: readonly TriggerRunRow[]): Promise<Array<TriggerRunRecorded | null>> {
  if (rows.length === 0) return [];
  const runs = rows.map((row) => row.run);
  const result = await sql.$queryRawUnsafe<Array<{ ord: string | number; id: string; status: string; depth: number; created: boolean }>>(
    `WITH t AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::int[], $5::jsonb[], $6::uuid[], $7::text[], $8::text[], $9::text[], $10::jsonb[], $11::int[],
                            $12::uuid[], $13::jsonb[], $14::text[], $15::int[], $16::boolean[])
              WITH ORDINALITY AS t(id, ws, agent, ver, origin, event, kind, status, reason, caused, depth, session, subject, lane, cap, probe, ord)),
     found AS (
       SELECT t.ord, r.id, r.status::text AS status, r.depth FROM t JOIN runs r ON r.agent_id = t.agent AND r.event_id = t.event AND r.origin_type = 'trigger'),
     fresh AS (
       SELECT t.*, count(*) FILTER (WHERE t.cap IS NOT NULL AND t.status = 'queued') OVER (PARTITION BY t.agent ORDER BY t.ord) AS place
         FROM t WHERE NOT t.probe AND NOT EXISTS (SELECT 1 FROM found f WHERE f.ord = t.ord)),
     queued AS (
       SELECT a.agent, (SELECT count(*) FROM (SELECT 1 FROM runs WHERE agent_id = a.agent AND status = 'queued' LIMIT a.cap) c) AS n
         FROM (SELECT agent, max(cap) AS cap FROM fresh WHERE cap IS NOT NULL GROUP BY agent) a),
     decided AS (
       SELECT f.*, CASE WHEN f.cap IS NOT NULL AND f.status = 'queued' AND q.n + f.place > f.cap THEN 'dropped' ELSE f.status END AS final
         FROM fresh f LEFT JOIN queued q ON q.agent = f.agent),
     made AS (
       INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, event_id, event_kind, event_subject, status, reason, caused_by, depth, session_id, lane)
       SELECT id, ws, agent, ver, 'trigger', origin, event, kind, subject, final::"RunStatus", CASE WHEN final = status THEN reason ELSE $17 END, caused, depth, session, lane
         FROM decided ORDER BY ord
       ON CONFLICT (agent_id, event_id) WHERE origin_type = 'trigger' DO NOTHING
       RETURNING id, status::text AS status, depth)
     SELECT t.ord, m.id::text AS id, m.status, m.depth, true AS created FROM made m JOIN t ON t.id = m.id
     UNION ALL
     SELECT f.ord, f.id::text, f.status, f.depth, false FROM found f`,
    runs.map((run) => run.id),
    runs.map((run) => run.workspaceId),
    runs.map((run) => run.agentId),
    runs.map((run) => run.agentVersion),
    runs.map((run) => JSON.stringify(run.origin)),
    runs.map((run) => run.eventId),
    runs.map((run) => run.eventKind),
    runs.map((run) => run.status),
    runs.map((run) => run.reason ?? null),
    runs.map((run) => (run.causedBy ? JSON.stringify(run.causedBy) : null)),
    runs.map((run) => run.depth),
    runs.map((run) => run.sessionId),
    runs.map((run) => JSON.stringify(run.eventSubject)),
    runs.map((run) => agentLane(run.agentId)),
    rows.map((row) => row.queueCap ?? null),
    rows.map((row) => row.probe === true),
    ACTIVATION_DROP_REASONS.queueFull,
  );
  const recorded: Array<TriggerRunRecorded | null> = rows.map(() => null);
  for (const row of result) recorded[Number(row.ord) - 1] = { id: row.id, status: row.status, depth: Number(row.depth), created: row.created };
  return recorded;
}

/**
 * The next runs of a backfill batch (decision 0055), in one INSERT: one `queued` run per stored
 * fact of `seqs`, origin `backfill`, its id (and its session's) derived from the batch and the
 * fact (a repeat inserts nothing; a version-8 UUID, so `GET /runs/{id}` takes it), caused and as deep as its fact (as a trigger run). The caller holds the agent's lane
 * lock and the batch row. Returns the ids inserted.
 */
export async function insertBackfillRuns(
  sql: SqlRunner,
  batch: { id: string; workspaceId: string; agentId: string; agentVersion: number; createdBy: string },
  seqs: readonly number[],
): Promise<string[]> {
  if (seqs.length === 0) return [];
  const rows = await sql.$queryRawUnsafe<Array<{ id: string }>>(
    `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, event_id, event_kind, event_subject, status, caused_by, depth, session_id, lane)
     SELECT d.id, $2::uuid, $3::uuid, $4::int, 'backfill',
            jsonb_build_object('type', 'backfill', 'batchId', $1::uuid, 'eventId', e.id, 'agentVersion', $4::int, 'userId', $5::uuid),
            e.id, e.kind, jsonb_build_object('type', e.subject_type, 'id', e.subject_id), 'queued', e.caused_by,
            coalesce((e.caused_by->>'depth')::int, 0), d.id, $6
       FROM platform_events e
       -- An RFC 9562 UUID (version 8, variant 10) from the md5: the API's ids are checked as UUIDs, and a bare md5 is none.
       CROSS JOIN LATERAL (SELECT overlay(overlay(md5('backfill:' || $1::text || ':' || e.id::text) placing '8' from 13) placing '8' from 17)::uuid AS id) d
      WHERE e.workspace_id = $2::uuid AND e.seq = ANY($7::bigint[])
      ORDER BY e.seq
     ON CONFLICT (id) DO NOTHING
     RETURNING id::text AS id`,
    batch.id,
    batch.workspaceId,
    batch.agentId,
    batch.agentVersion,
    batch.createdBy,
    agentLane(batch.agentId),
    [...seqs],
  );
  return rows.map((row) => row.id);
}
