import { ActorSchema, AppError, CausedBySchema, ErrorCode, TaskOwnerSchema, type TaskStatus } from '@switchyard/contracts';
import { recordFacts, type PrismaClient } from '@switchyard/db';
import type { FactsOf } from '../fact-ports';
import type { NewTask, TaskChange, TaskListFilter, TaskMutation, TaskRecord, TaskStore } from '../team-ports';

/** A Prisma client or one of its transactions: what the queries below run on. */
type Sql = Pick<PrismaClient, '$queryRawUnsafe' | '$executeRawUnsafe'>;

interface TaskRow {
  id: string;
  subject: string;
  description: string;
  status: TaskStatus;
  owner_type: string | null;
  owner_id: string | null;
  blocked_by: string[] | null;
  open_blockers: string[];
  created_by: unknown;
  caused_by: unknown;
  created_at: Date;
  updated_at: Date;
  claimed_at: Date | null;
  ended_at: Date | null;
}

/** A blocker is open until it is completed or cancelled. */
const OPEN = `('pending', 'in_progress')`;

const SELECT = `SELECT t.id::text, t.subject, t.description, t.status::text AS status, t.owner_type, t.owner_id,
    t.blocked_by::text[] AS blocked_by,
    ARRAY(SELECT b.id::text FROM tasks b WHERE b.workspace_id = t.workspace_id AND b.id = ANY(t.blocked_by) AND b.status IN ${OPEN} ORDER BY b.id) AS open_blockers,
    t.created_by, t.caused_by, t.created_at, t.updated_at, t.claimed_at, t.ended_at
  FROM tasks t`;

/** Concurrent claims queue on the row lock: give them time on a busy machine rather than failing the waiters. */
const TX_OPTIONS = { maxWait: 15_000, timeout: 30_000 };

function toRecord(row: TaskRow): TaskRecord {
  return {
    id: row.id,
    subject: row.subject,
    description: row.description,
    status: row.status,
    owner: row.owner_type === null ? null : TaskOwnerSchema.parse({ type: row.owner_type, id: row.owner_id }),
    blockedBy: row.blocked_by ?? [],
    openBlockers: row.open_blockers,
    // JSON columns are a boundary: parsed like any outside input.
    createdBy: ActorSchema.parse(row.created_by),
    causedBy: row.caused_by === null ? null : CausedBySchema.parse(row.caused_by),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    claimedAt: row.claimed_at?.toISOString() ?? null,
    endedAt: row.ended_at?.toISOString() ?? null,
  };
}

async function selectTasks(sql: Sql, where: string, params: unknown[], tail = ''): Promise<TaskRecord[]> {
  const rows = await sql.$queryRawUnsafe<TaskRow[]>(`${SELECT} ${where} ${tail}`, ...params);
  return rows.map(toRecord);
}

const invalidBlockers = (reason: 'not_found' | 'self' | 'cycle', ids: string[]) =>
  new AppError(ErrorCode.TASK_BLOCKER_INVALID, `blockedBy is invalid: ${reason.replace('_', ' ')}`, { reason, ids });

/**
 * Checks a task's `blockedBy`: every id a task of the workspace, not the task
 * itself, and (for an existing task) none that depends on it. The workspace's
 * advisory lock serializes these checks, so two edits cannot close a cycle
 * between them.
 */
async function checkBlockers(sql: Sql, workspaceId: string, taskId: string, blockedBy: string[], isNew: boolean): Promise<void> {
  await sql.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(hashtextextended('tasks:' || $1, 0))::text`, workspaceId);
  if (blockedBy.length === 0) return;
  if (blockedBy.includes(taskId)) throw invalidBlockers('self', [taskId]);
  const found = await sql.$queryRawUnsafe<Array<{ id: string }>>(`SELECT id::text FROM tasks WHERE workspace_id = $1::uuid AND id = ANY($2::uuid[])`, workspaceId, blockedBy);
  const known = new Set(found.map((row) => row.id));
  const missing = blockedBy.filter((id) => !known.has(id));
  if (missing.length > 0) throw invalidBlockers('not_found', missing);
  if (isNew) return;
  // Everything the new blockers wait for, transitively: the task among them closes a cycle.
  const [cycle] = await sql.$queryRawUnsafe<Array<{ cycle: boolean }>>(
    `WITH RECURSIVE reach(id) AS (
       SELECT unnest($2::uuid[])
       UNION SELECT unnest(t.blocked_by) FROM tasks t JOIN reach r ON t.id = r.id WHERE t.workspace_id = $1::uuid)
     SELECT EXISTS (SELECT 1 FROM reach WHERE id = $3::uuid) AS cycle`,
    workspaceId,
    blockedBy,
    taskId,
  );
  if (cycle?.cycle) throw invalidBlockers('cycle', blockedBy);
}

/** The SET clause and parameters of a mutation (from `$3`: `$1`, `$2` are the workspace and the id). */
function setClause(mutation: TaskMutation): { sql: string; params: unknown[] } {
  const sets: string[] = ['updated_at = now()'];
  const params: unknown[] = [];
  const add = (column: string, value: unknown, cast = '') => {
    params.push(value);
    sets.push(`${column} = $${params.length + 2}${cast}`);
  };
  if (mutation.subject !== undefined) add('subject', mutation.subject);
  if (mutation.description !== undefined) add('description', mutation.description);
  if (mutation.blockedBy !== undefined) add('blocked_by', mutation.blockedBy, '::uuid[]');
  if (mutation.status !== undefined) add('status', mutation.status, '::"TaskStatus"');
  if (mutation.owner !== undefined) {
    add('owner_type', mutation.owner?.type ?? null);
    add('owner_id', mutation.owner?.id ?? null);
  }
  if (mutation.claimedAt !== undefined) add('claimed_at', mutation.claimedAt, '::timestamptz');
  if (mutation.endedAt !== undefined) add('ended_at', mutation.endedAt, '::timestamptz');
  return { sql: sets.join(', '), params };
}

/**
 * The task ledger on PostgreSQL (`tasks`). A change locks its task's row and
 * then its dependents' rows (in id order), so that of two blockers of one
 * task ending at once, the second sees the first's commit and announces the
 * task unblocked — exactly once.
 */
export class PrismaTaskStore implements TaskStore {
  constructor(private readonly prisma: PrismaClient) {}

  async create(task: NewTask, facts: FactsOf<TaskRecord>): Promise<TaskRecord> {
    return this.prisma.$transaction(async (tx) => {
      await checkBlockers(tx, task.workspaceId, task.id, task.blockedBy, true);
      await tx.$executeRawUnsafe(
        `INSERT INTO tasks (id, workspace_id, subject, description, status, blocked_by, created_by, caused_by, created_at, updated_at)
         VALUES ($1::uuid, $2::uuid, $3, $4, 'pending', $5::uuid[], $6::jsonb, $7::jsonb, now(), now())`,
        task.id,
        task.workspaceId,
        task.subject,
        task.description,
        task.blockedBy,
        JSON.stringify(task.createdBy),
        task.causedBy === null ? null : JSON.stringify(task.causedBy),
      );
      const [created] = await selectTasks(tx, 'WHERE t.workspace_id = $1::uuid AND t.id = $2::uuid', [task.workspaceId, task.id]);
      await recordFacts(tx, facts(created!));
      return created!;
    }, TX_OPTIONS);
  }

  async list(workspaceId: string, filter: TaskListFilter): Promise<TaskRecord[]> {
    const where = ['t.workspace_id = $1::uuid'];
    const params: unknown[] = [workspaceId];
    const add = (clause: (n: string) => string, value: unknown) => {
      params.push(value);
      where.push(clause(`$${params.length}`));
    };
    if (filter.status !== undefined) add((n) => `t.status = ${n}::"TaskStatus"`, filter.status);
    if (filter.ownerType !== undefined) add((n) => `t.owner_type = ${n}`, filter.ownerType);
    if (filter.ownerId !== undefined) add((n) => `t.owner_id = ${n}`, filter.ownerId);
    if (filter.after !== undefined) add((n) => `t.id > ${n}::uuid`, filter.after);
    if (filter.blocked !== undefined) {
      where.push(`${filter.blocked ? '' : 'NOT '}EXISTS (SELECT 1 FROM tasks b WHERE b.workspace_id = t.workspace_id AND b.id = ANY(t.blocked_by) AND b.status IN ${OPEN})`);
    }
    params.push(filter.limit);
    return selectTasks(this.prisma, `WHERE ${where.join(' AND ')}`, params, `ORDER BY t.id LIMIT $${params.length}`);
  }

  async get(workspaceId: string, id: string): Promise<TaskRecord | null> {
    const [task] = await selectTasks(this.prisma, 'WHERE t.workspace_id = $1::uuid AND t.id = $2::uuid', [workspaceId, id]);
    return task ?? null;
  }

  async change(workspaceId: string, id: string, decide: (task: TaskRecord) => TaskMutation | null, facts: FactsOf<TaskChange>): Promise<TaskChange | null> {
    return this.prisma.$transaction(async (tx) => {
      const byId = 'WHERE t.workspace_id = $1::uuid AND t.id = $2::uuid';
      const [previous] = await selectTasks(tx, byId, [workspaceId, id], 'FOR UPDATE OF t');
      if (!previous) return null;
      const mutation = decide(previous);
      if (mutation === null) return { task: previous, previous, changed: false, deleted: false, unblocked: [] };
      if (mutation.blockedBy !== undefined) await checkBlockers(tx, workspaceId, id, mutation.blockedBy, false);
      const endsOpen = (previous.status === 'pending' || previous.status === 'in_progress') && (mutation.delete === true || mutation.status === 'completed' || mutation.status === 'cancelled');
      // The dependents' rows, locked before this change can clear them.
      const dependents = endsOpen
        ? await tx.$queryRawUnsafe<Array<{ id: string }>>(
            `SELECT id::text FROM tasks WHERE workspace_id = $1::uuid AND $2::uuid = ANY(blocked_by) AND status IN ${OPEN} ORDER BY id FOR UPDATE`,
            workspaceId,
            id,
          )
        : [];
      let task = previous;
      if (mutation.delete) {
        await checkBlockers(tx, workspaceId, id, [], false);
        await tx.$executeRawUnsafe(`UPDATE tasks SET blocked_by = array_remove(blocked_by, $2::uuid), updated_at = now() WHERE workspace_id = $1::uuid AND $2::uuid = ANY(blocked_by)`, workspaceId, id);
        await tx.$executeRawUnsafe(`DELETE FROM tasks WHERE workspace_id = $1::uuid AND id = $2::uuid`, workspaceId, id);
      } else {
        const set = setClause(mutation);
        await tx.$executeRawUnsafe(`UPDATE tasks SET ${set.sql} WHERE workspace_id = $1::uuid AND id = $2::uuid`, workspaceId, id, ...set.params);
        [task] = (await selectTasks(tx, byId, [workspaceId, id])) as [TaskRecord];
      }
      // A new statement, so it sees every blocker ended by transactions that committed while this one waited for the locks.
      const unblocked =
        dependents.length === 0
          ? []
          : (await selectTasks(tx, 'WHERE t.workspace_id = $1::uuid AND t.id = ANY($2::uuid[])', [workspaceId, dependents.map((row) => row.id)], 'ORDER BY t.id')).filter(
              (dependent) => dependent.openBlockers.length === 0,
            );
      const change: TaskChange = { task, previous, changed: true, deleted: mutation.delete === true, unblocked };
      await recordFacts(tx, facts(change));
      return change;
    }, TX_OPTIONS);
  }
}
