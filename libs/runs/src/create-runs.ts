import type { CausedBy, RunOrigin, RunStatus, Subject } from '@switchyard/contracts';
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

/**
 * The matcher's batch of trigger runs in one INSERT, each in its agent's lane. A pair (agent,
 * fact) another matcher recorded first is left as it is (the partial unique index). Returns the
 * ids inserted.
 */
export async function insertTriggerRuns(sql: SqlRunner, runs: readonly NewTriggerRun[]): Promise<Set<string>> {
  if (runs.length === 0) return new Set();
  const inserted = await sql.$queryRawUnsafe<Array<{ id: string }>>(
    `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, event_id, event_kind, event_subject, status, reason, caused_by, depth, session_id, lane)
     SELECT id, ws, agent, ver, 'trigger', origin, event, kind, subject, status::"RunStatus", reason, caused, depth, session, lane
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::int[], $5::jsonb[], $6::uuid[], $7::text[], $8::text[], $9::text[], $10::jsonb[], $11::int[], $12::uuid[], $13::jsonb[], $14::text[])
            WITH ORDINALITY AS t(id, ws, agent, ver, origin, event, kind, status, reason, caused, depth, session, subject, lane, ord)
      ORDER BY ord
     ON CONFLICT (agent_id, event_id) WHERE origin_type = 'trigger' DO NOTHING
     RETURNING id::text AS id`,
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
  );
  return new Set(inserted.map((row) => row.id));
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
