import type { RunStatus } from '@switchyard/contracts';
import type { SqlRunner } from '@switchyard/db';
import type { AgentLine, HandOff, NextQuery, RunEnding, RunPosition, RunRef, RunStore, StartedRun, StartInstead, StopReason } from '../ports';
import { RUN_CONTEXT_COLUMNS, runContextFromRow, type RunContextRow } from './sql-run-context';

interface RefRow {
  id: string;
  workspace_id: string;
  slug: string;
  agent_id: string;
  agent_version: number;
  status: RunStatus;
  event_id: string | null;
  depth: number;
}

/** Columns of RefRow, from `runs r` joined with `workspaces w`. */
const REF_COLUMNS = `r.id::text AS id, r.workspace_id::text AS workspace_id, w.slug, r.agent_id::text AS agent_id,
  r.agent_version, r.status::text AS status, r.event_id::text AS event_id, r.depth`;

function toRef(row: RefRow): RunRef {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    workspaceSlug: row.slug,
    agentId: row.agent_id,
    agentVersion: Number(row.agent_version),
    status: row.status,
    eventId: row.event_id,
    depth: Number(row.depth),
  };
}

/** The row of a line read: the oldest queued runs in line order, and the running ids. */
interface LineRow {
  line: RefRow[];
  running: string[];
  active: string[];
}

/**
 * The select list and FROM of a line read, given the placeholders of the
 * agent, the limit, the lost-run age and (optionally) a run left out of the
 * running ones. One row: the running ids (and those old enough to be lost)
 * and the oldest queued runs, in line order, each as JSON — which the client
 * parses natively, where a row per run repeated the id arrays on every row
 * for pg's JavaScript array parser (a tenth of the runner's samples at 200/s).
 * No specs: a version's spec never changes, and the runner keeps what it
 * read. The line is cut first (LIMIT over the (agent_id, status, queued_at,
 * id) index, no sort), then joined: the cost stays that of `limit` rows
 * however long the line grows. Sorting the joined line instead made each
 * claim O(backlog) and a backlog feed on itself.
 */
function lineSql(agent: string, limit: string, lostAfterMs: string, leaveOut?: string): string {
  return `running.old AS running, running.ids AS active,
    (SELECT coalesce(json_agg(json_build_object(
              'id', r.id, 'workspace_id', r.workspace_id, 'slug', w.slug, 'agent_id', r.agent_id,
              'agent_version', r.agent_version, 'status', r.status, 'event_id', r.event_id, 'depth', r.depth)
              ORDER BY r.queued_at, r.id), '[]'::json)
       FROM (SELECT * FROM runs WHERE agent_id = ${agent}::uuid AND status = 'queued' ORDER BY queued_at, id LIMIT ${limit}) r
       JOIN workspaces w ON w.id = r.workspace_id) AS line
    FROM (SELECT coalesce(json_agg(id), '[]'::json) AS ids,
                 coalesce(json_agg(id) FILTER (WHERE started_at < now() - make_interval(secs => ${lostAfterMs}::double precision / 1000)), '[]'::json) AS old
            FROM runs WHERE agent_id = ${agent}::uuid AND status = 'running'${leaveOut ? ` AND id <> ${leaveOut}::uuid` : ''}) running`;
}

function lineFromRow(row: LineRow | undefined): AgentLine {
  return { candidates: (row?.line ?? []).map(toRef), running: row?.running ?? [], active: row?.active ?? [] };
}

/** A run's ending, as a CTE (`ended` returns the RefRow). */
const finishSql = `WITH ended AS (
    UPDATE runs r SET status = $3::"RunStatus", reason = $4, outcome = $5::jsonb, error = $6::jsonb, ended_at = now()
      FROM workspaces w
     WHERE r.id = $1::uuid AND r.status::text = ANY($2::text[]) AND w.id = r.workspace_id
     RETURNING ${REF_COLUMNS})`;

/** Parameters $1–$6 of finishSql. */
function finishParams(runId: string, from: readonly RunStatus[], ending: RunEnding): unknown[] {
  return [
    runId,
    [...from],
    ending.status,
    ending.reason,
    ending.outcome ? JSON.stringify(ending.outcome) : null,
    ending.error ? JSON.stringify(ending.error) : null,
  ];
}

/** A run just moved to `running` (from `started r`), with its context and stop flags, as StartedRow. */
function startedSelect(contextColumns: string): string {
  return `SELECT ${REF_COLUMNS}, ${contextColumns}, r.stop_requested, coalesce(s.agents_paused, false) AS paused
         FROM started r JOIN workspaces w ON w.id = r.workspace_id
         LEFT JOIN workspace_settings s ON s.workspace_id = r.workspace_id`;
}

type StartedRow = RefRow & RunContextRow & { stop_requested: boolean; paused: boolean };

function startedFromRow(row: StartedRow): StartedRun {
  return {
    ...toRef(row),
    context: runContextFromRow(row, row.slug),
    stop: row.stop_requested ? 'stopped' : row.paused ? 'agents_paused' : null,
  };
}

/**
 * The id of the agent's next run, taken as a queue takes its head (a scalar
 * subquery): the oldest queued run not in `skip`, locked FOR UPDATE SKIP
 * LOCKED so that a run another runner is moving to `running` right now is
 * passed over, not waited for (and one it just did fails the recheck of
 * `status`); null unless it is of `version` (its spec is the one the lane
 * has). `condition` is ANDed into the search.
 */
function nextInLineSql(agent: string, skip: string, version: string, condition = ''): string {
  return `(SELECT h.id FROM (
             SELECT id, agent_version FROM runs
              WHERE agent_id = ${agent}::uuid AND status = 'queued' AND NOT (id = ANY(${skip}::uuid[]))${condition}
              ORDER BY queued_at, id LIMIT 1
              FOR UPDATE SKIP LOCKED) h
           WHERE h.agent_version = ${version})`;
}

/** The line read of queuedCandidates. */
const LINE_SQL = `SELECT ${lineSql('$1', '$2', '$3')}`;

/**
 * markRunning: the run if it is still queued and nobody is starting it right
 * now, else (when $2 names the agent) the next in line in its place. COALESCE
 * evaluates its second query only when the first is null; with $2 null it
 * finds nothing.
 */
const MARK_RUNNING_SQL = `WITH started AS (
    UPDATE runs r SET status = 'running', started_at = now()
     WHERE r.id = coalesce(
             (SELECT id FROM runs WHERE id = $1::uuid AND status = 'queued' FOR UPDATE SKIP LOCKED),
             ${nextInLineSql('$2', '$3', '$4')})
       AND r.status = 'queued'
     RETURNING r.*)
  ${startedSelect(RUN_CONTEXT_COLUMNS)}`;

/**
 * finishAndStartNext. All parts read the statement's snapshot, in which the
 * ending run is still `running` and the started one still `queued`: the line
 * leaves both out (one more row is read so that the line is still `limit`
 * long without the started run). The next run is looked for only if the
 * ending applied, and updated by its id (a scalar subquery): a join with it
 * let the planner scan the whole table when its statistics were stale
 * (auto_explain in bench:match).
 */
const FINISH_AND_START_NEXT_SQL = `${finishSql},
  started AS (
    UPDATE runs r SET status = 'running', started_at = now()
     WHERE r.id = ${nextInLineSql('$7', '$8', '$9', ' AND EXISTS (SELECT 1 FROM ended)')} AND r.status = 'queued'
     RETURNING r.*)
  SELECT (SELECT row_to_json(e) FROM ended e) AS ended,
         (SELECT row_to_json(b) FROM (${startedSelect(RUN_CONTEXT_COLUMNS)}) b) AS started,
         ${lineSql('$7', '$10', '$11', '$1')}`;

/**
 * The runner's queries on the run ledger. Every status change is one
 * conditional UPDATE (`WHERE status = …`), so two runners, or a runner and
 * the gateway, never both move a run out of the same status.
 */
export class SqlRunStore implements RunStore {
  constructor(private readonly prisma: SqlRunner) {}

  async queuedCandidates(agentId: string, limit: number, lostAfterMs: number): Promise<AgentLine> {
    const [row] = await this.prisma.$queryRawUnsafe<LineRow[]>(LINE_SQL, agentId, limit, lostAfterMs);
    return lineFromRow(row);
  }

  async specOf(agentId: string, version: number): Promise<unknown> {
    const [row] = await this.prisma.$queryRawUnsafe<Array<{ spec: unknown }>>(
      'SELECT spec FROM agent_versions WHERE agent_id = $1::uuid AND version = $2',
      agentId,
      version,
    );
    return row?.spec ?? null;
  }

  /** The count uses the (agent_id, status, queued_at, id) index; `id` breaks queued_at ties (UUIDv7, so creation order). */
  async load(runId: string): Promise<RunPosition | null> {
    const [row] = await this.prisma.$queryRawUnsafe<Array<RefRow & { ahead: string | bigint }>>(
      `SELECT ${REF_COLUMNS},
         (SELECT count(*) FROM runs q WHERE q.agent_id = r.agent_id AND q.status = 'queued'
             AND (q.queued_at, q.id) < (r.queued_at, r.id)) AS ahead
         FROM runs r JOIN workspaces w ON w.id = r.workspace_id
        WHERE r.id = $1::uuid`,
      runId,
    );
    return row ? { ...toRef(row), ahead: Number(row.ahead) } : null;
  }

  async markRunning(runId: string, instead?: StartInstead): Promise<StartedRun | null> {
    // One statement: the conditional update, and what the executor needs of the run (its
    // context, the stop flags) read alongside, so a run's first step costs no extra query.
    const [row] = await this.prisma.$queryRawUnsafe<StartedRow[]>(MARK_RUNNING_SQL, runId, instead?.agentId ?? null, [...(instead?.skip ?? [])], instead?.version ?? 0);
    return row ? startedFromRow(row) : null;
  }

  async finish(runId: string, from: readonly RunStatus[], ending: RunEnding): Promise<RunRef | null> {
    const [row] = await this.prisma.$queryRawUnsafe<RefRow[]>(`${finishSql} SELECT * FROM ended`, ...finishParams(runId, from, ending));
    return row ? toRef(row) : null;
  }

  async finishAndStartNext(runId: string, from: readonly RunStatus[], ending: RunEnding, next: NextQuery): Promise<HandOff> {
    const [row] = await this.prisma.$queryRawUnsafe<Array<LineRow & { ended: RefRow | null; started: StartedRow | null }>>(
      FINISH_AND_START_NEXT_SQL,
      ...finishParams(runId, from, ending),
      next.agentId,
      [...next.skip],
      next.version,
      next.limit + 1,
      next.lostAfterMs,
    );
    const started = row?.started ? startedFromRow(row.started) : null;
    const line = lineFromRow(row);
    const candidates = line.candidates.filter((run) => run.id !== started?.id).slice(0, next.limit);
    return { ended: row?.ended ? toRef(row.ended) : null, started, line: { ...line, candidates } };
  }

  async stopReason(runId: string): Promise<StopReason | null> {
    const [row] = await this.prisma.$queryRawUnsafe<Array<{ stop_requested: boolean; paused: boolean }>>(
      `SELECT r.stop_requested, coalesce(s.agents_paused, false) AS paused
         FROM runs r LEFT JOIN workspace_settings s ON s.workspace_id = r.workspace_id
        WHERE r.id = $1::uuid`,
      runId,
    );
    if (row?.stop_requested) return 'stopped';
    if (row?.paused) return 'agents_paused';
    return null;
  }

  async runningSince(olderThanMs: number): Promise<Array<{ id: string; agentId: string }>> {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ id: string; agent_id: string }>>(
      `SELECT id::text AS id, agent_id::text AS agent_id FROM runs
        WHERE status = 'running' AND started_at < now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY started_at LIMIT 1000`,
      olderThanMs,
    );
    return rows.map((row) => ({ id: row.id, agentId: row.agent_id }));
  }

  async queuedSince(olderThanMs: number): Promise<Array<{ id: string; workspaceId: string; agentId: string }>> {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ id: string; workspace_id: string; agent_id: string }>>(
      `SELECT id::text AS id, workspace_id::text AS workspace_id, agent_id::text AS agent_id FROM runs
        WHERE status = 'queued' AND queued_at < now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY queued_at LIMIT 1000`,
      olderThanMs,
    );
    return rows.map((row) => ({ id: row.id, workspaceId: row.workspace_id, agentId: row.agent_id }));
  }

  async nextQueued(agentId: string, limit: number): Promise<string[]> {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ id: string }>>(
      `SELECT id::text AS id FROM runs WHERE agent_id = $1::uuid AND status = 'queued' ORDER BY queued_at, id LIMIT $2`,
      agentId,
      limit,
    );
    return rows.map((row) => row.id);
  }
}
