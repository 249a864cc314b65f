import {
  AppError,
  ErrorCode,
  TASK_FACT_KINDS,
  type CausedBy,
  type CreateTaskRequest,
  type Task,
  type TaskFactKind,
  type TaskOwner,
  type UpdateTaskRequest,
} from '@switchyard/contracts';
import { newId, taskFact } from '@switchyard/core';
import { actorOf, changeAuthorOf } from '../change-author';
import { hasRole } from '../http/auth';
import type { Principal } from '../auth-ports';
import type { FactFlusher } from '../fact-ports';
import type { TaskChange, TaskListFilter, TaskMutation, TaskRecord, TaskStore } from '../team-ports';

/** Who asks, and the id that ties the request to the facts it records. */
export interface TaskCommandContext {
  principal: Principal;
  correlationId: string;
}

const notFound = (id: string) => new AppError(ErrorCode.TASK_NOT_FOUND, 'no such task in this workspace', { id });
const notOpen = (task: TaskRecord, action: string) => new AppError(ErrorCode.TASK_NOT_OPEN, `a ${task.status} task cannot be ${action}`, { id: task.id, status: task.status });
const isOpen = (task: TaskRecord) => task.status === 'pending' || task.status === 'in_progress';
const sameOwner = (a: TaskOwner | null, b: TaskOwner) => a !== null && a.type === b.type && a.id === b.id;

/** The caller as a task owner (its member, or the agent of its agent token). */
function ownerOf(principal: Principal): TaskOwner {
  const actor = actorOf(principal);
  return { type: actor.type === 'agent' ? 'agent' : 'member', id: actor.id };
}

/** The run a change is caused by: an agent token's run, one step deeper (the loop guards' view). */
function causedByOf(principal: Principal): CausedBy | null {
  const agent = principal.agent;
  return agent ? { runId: agent.runId, agentId: agent.agentId, depth: agent.depth + 1 } : null;
}

/** The task as the API shows it. */
export function toTaskResponse(task: TaskRecord, principal: Principal): Task {
  return { ...task, workspace: principal.workspaceSlug };
}

/**
 * The task ledger's rules (decision 0031). The store locks the task and
 * applies what these decide, with the facts they name, in one transaction.
 * - claim: a pending task without open blockers becomes the caller's; one of
 *   concurrent claims wins, the others get TASK_ALREADY_CLAIMED with the owner;
 *   the owner claiming again changes nothing;
 * - complete: the owner (or an admin) completes an in-progress task; a pending
 *   one is completed by whoever completes it; a task with open blockers cannot be;
 * - update, cancel, reopen: its creator, its owner or an admin;
 * - delete: its creator or an admin.
 * Ending a task announces (`task.unblocked`) every task whose last open blocker it was.
 */
export class TaskLedger {
  constructor(
    private readonly tasks: TaskStore,
    private readonly outbox: FactFlusher,
  ) {}

  async create(ctx: TaskCommandContext, body: CreateTaskRequest): Promise<Task> {
    const { principal } = ctx;
    const written: string[] = [];
    const task = await this.tasks.create(
      { id: newId(), workspaceId: principal.workspaceId, ...body, createdBy: actorOf(principal), causedBy: causedByOf(principal) },
      (created) => this.facts(ctx, written, [[TASK_FACT_KINDS.created, created]]),
    );
    await this.outbox.flush(written);
    return toTaskResponse(task, principal);
  }

  async list(principal: Principal, filter: TaskListFilter): Promise<{ tasks: Task[]; nextCursor: string | null }> {
    const page = await this.tasks.list(principal.workspaceId, filter);
    return { tasks: page.map((task) => toTaskResponse(task, principal)), nextCursor: page.length === filter.limit ? page.at(-1)!.id : null };
  }

  async get(principal: Principal, id: string): Promise<Task> {
    const task = await this.tasks.get(principal.workspaceId, id);
    if (!task) throw notFound(id);
    return toTaskResponse(task, principal);
  }

  async update(ctx: TaskCommandContext, id: string, changes: UpdateTaskRequest): Promise<Task> {
    return this.change(ctx, id, TASK_FACT_KINDS.updated, (task) => {
      this.assertSteward(ctx.principal, task, 'edit');
      if (!isOpen(task)) throw notOpen(task, 'edited');
      return { ...changes };
    });
  }

  async claim(ctx: TaskCommandContext, id: string): Promise<Task> {
    const owner = ownerOf(ctx.principal);
    return this.change(ctx, id, TASK_FACT_KINDS.claimed, (task) => {
      if (task.status === 'in_progress') {
        if (sameOwner(task.owner, owner)) return null;
        throw new AppError(ErrorCode.TASK_ALREADY_CLAIMED, 'another owner has claimed this task', { id, owner: task.owner });
      }
      if (task.status !== 'pending') throw notOpen(task, 'claimed');
      assertUnblocked(task);
      return { status: 'in_progress', owner, claimedAt: new Date() };
    });
  }

  async complete(ctx: TaskCommandContext, id: string): Promise<Task> {
    const caller = ownerOf(ctx.principal);
    return this.change(ctx, id, TASK_FACT_KINDS.completed, (task) => {
      if (!isOpen(task)) throw notOpen(task, 'completed');
      if (task.status === 'in_progress' && !sameOwner(task.owner, caller) && !hasRole(ctx.principal, 'admin')) {
        throw new AppError(ErrorCode.TASK_ALREADY_CLAIMED, 'another owner holds this task: only it (or an admin) completes it', { id, owner: task.owner });
      }
      assertUnblocked(task);
      return { status: 'completed', owner: task.owner ?? caller, endedAt: new Date() };
    });
  }

  async cancel(ctx: TaskCommandContext, id: string): Promise<Task> {
    return this.change(ctx, id, TASK_FACT_KINDS.cancelled, (task) => {
      this.assertSteward(ctx.principal, task, 'cancel');
      if (!isOpen(task)) throw notOpen(task, 'cancelled');
      return { status: 'cancelled', endedAt: new Date() };
    });
  }

  async reopen(ctx: TaskCommandContext, id: string): Promise<Task> {
    return this.change(ctx, id, TASK_FACT_KINDS.reopened, (task) => {
      this.assertSteward(ctx.principal, task, 'reopen');
      if (isOpen(task)) throw notOpen(task, 'reopened');
      return { status: 'pending', owner: null, claimedAt: null, endedAt: null };
    });
  }

  async delete(ctx: TaskCommandContext, id: string): Promise<void> {
    await this.change(ctx, id, TASK_FACT_KINDS.deleted, (task) => {
      if (!isCreator(ctx.principal, task) && !hasRole(ctx.principal, 'admin')) {
        throw new AppError(ErrorCode.FORBIDDEN, "only the task's creator or an admin may delete it", { required: 'admin or the creator', actual: ctx.principal.role });
      }
      return { delete: true } satisfies TaskMutation;
    });
  }

  /** Runs one change under the task's lock; `kind` is the fact it records (with `task.unblocked` for what it cleared). */
  private async change(ctx: TaskCommandContext, id: string, kind: TaskFactKind, decide: (task: TaskRecord) => TaskMutation | null): Promise<Task> {
    const written: string[] = [];
    const change = await this.tasks.change(ctx.principal.workspaceId, id, decide, (result: TaskChange) =>
      this.facts(ctx, written, [[kind, result.task], ...result.unblocked.map((task) => [TASK_FACT_KINDS.unblocked, task] as const)]),
    );
    if (!change) throw notFound(id);
    await this.outbox.flush(written);
    return toTaskResponse(change.task, ctx.principal);
  }

  /** Update, cancel and reopen: the creator, the owner or an admin. */
  private assertSteward(principal: Principal, task: TaskRecord, action: string): void {
    if (isCreator(principal, task) || sameOwner(task.owner, ownerOf(principal)) || hasRole(principal, 'admin')) return;
    throw new AppError(ErrorCode.FORBIDDEN, `only the task's creator, its owner or an admin may ${action} it`, { required: 'admin, the creator or the owner', actual: principal.role });
  }

  private facts(ctx: TaskCommandContext, written: string[], items: ReadonlyArray<readonly [TaskFactKind, TaskRecord]>) {
    const author = changeAuthorOf(ctx.principal);
    const causedBy = causedByOf(ctx.principal);
    const recorded = items.map(([kind, task]) => ({ fact: taskFact(author, kind, task, causedBy), correlationId: ctx.correlationId }));
    written.push(...recorded.map((item) => item.fact.id));
    return recorded;
  }
}

function isCreator(principal: Principal, task: TaskRecord): boolean {
  const actor = actorOf(principal);
  return task.createdBy.type === actor.type && task.createdBy.id === actor.id;
}

function assertUnblocked(task: TaskRecord): void {
  if (task.openBlockers.length > 0) {
    throw new AppError(ErrorCode.TASK_BLOCKED, 'the task waits for blockers that are neither completed nor cancelled', { id: task.id, openBlockers: task.openBlockers });
  }
}
