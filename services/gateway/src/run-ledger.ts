import { AppError, ErrorCode, isTerminalRunStatus, type RunOrigin, type StopAction, type StoppedRun } from '@switchyard/contracts';
import { newId, runVersionOf } from '@switchyard/core';
import type { Logger } from '@switchyard/logging';
import { delegationMessage } from './commands/delegation-message';
import { wakeNewRun } from './commands/wake-new-run';
import type { AgentRecord, AgentStore } from './agent-ports';
import type { Principal } from './auth-ports';
import type { ActivationSink, NewRun, RunRecord, RunStore, StopRunResult } from './run-ports';
import type { SettingsStore } from './settings-ports';

/** What RunLedger needs: only the methods it calls, so a test fakes no more than that. */
export interface RunLedgerDeps {
  runs: Pick<RunStore, 'get' | 'create' | 'stop' | 'activeDescendants' | 'fail'>;
  agents: Pick<AgentStore, 'get'>;
  settings: Pick<SettingsStore, 'get'>;
  activations: ActivationSink;
  log: Logger;
  /** Runs at this causation depth or deeper are not started (MAX_CAUSATION_DEPTH, as the matcher's). */
  maxCausationDepth: number;
}

/** Who asked, and the id of the request (for the logs). */
export interface RunCommandContext {
  principal: Principal;
  correlationId: string;
}

/**
 * The run commands of the gateway: start a manual run, retry an ended run,
 * stop a run. Each writes the ledger — every status change records its
 * `agent.run.*` fact with it (the runs trigger, decision 0024) — then (for a
 * new run) enqueues its activation; the runner, not the gateway, executes and
 * finishes runs.
 */
export class RunLedger {
  constructor(private readonly deps: RunLedgerDeps) {}

  /** A manual run of the agent's version for runs (pinned, else latest), with `input` as its first message. */
  async start(ctx: RunCommandContext, agentId: string, input: string): Promise<RunRecord> {
    const agent = await this.runnableAgent(ctx.principal, agentId);
    // A run started by an agent (its agent token) is caused by that agent's run, one step deeper,
    // under the same self-cause and depth rules as the facts it records: no escape from the cap.
    const caller = ctx.principal.agent;
    if (caller) {
      if (caller.agentId === agent.id && !agent.spec.allowSelfCause) {
        throw new AppError(ErrorCode.SELF_CAUSED, 'an agent may not start its own runs unless its spec sets allowSelfCause', { id: agentId });
      }
      if (caller.depth + 1 >= this.deps.maxCausationDepth) {
        throw new AppError(ErrorCode.CAUSATION_DEPTH_EXCEEDED, 'this run would be deeper than the causation depth cap', {
          depth: caller.depth + 1,
          max: this.deps.maxCausationDepth,
        });
      }
    }
    return this.queue(ctx, {
      ...this.freshRun(ctx.principal, agent),
      origin: { type: 'manual', input, userId: ctx.principal.userId },
      eventId: null,
      eventKind: null,
      eventSubject: null,
      causedBy: caller ? { runId: caller.runId, agentId: caller.agentId, depth: caller.depth + 1 } : null,
      depth: caller ? caller.depth + 1 : 0,
    });
  }

  /**
   * A delegated child run (`delegate_to_agent`): the caller's run is its
   * parent and cause, one step deeper, under the depth cap; the target was
   * admitted by the delegation rules (itself or an enabled collaborator).
   * `beforeEnqueue` runs once the run is committed (it tells the child its
   * objective); if it fails, the run is failed like an enqueue failure.
   */
  async startDelegated(
    ctx: RunCommandContext,
    agentId: string,
    origin: Extract<RunOrigin, { type: 'delegation' }>,
    beforeEnqueue: (run: RunRecord) => Promise<void>,
  ): Promise<RunRecord> {
    const caller = ctx.principal.agent;
    if (!caller) throw new AppError(ErrorCode.FORBIDDEN, "delegation needs a run's agent token", { required: 'agent token', actual: ctx.principal.role });
    const agent = await this.runnableAgent(ctx.principal, agentId);
    if (caller.depth + 1 >= this.deps.maxCausationDepth) {
      throw new AppError(ErrorCode.CAUSATION_DEPTH_EXCEEDED, 'this run would be deeper than the causation depth cap', { depth: caller.depth + 1, max: this.deps.maxCausationDepth });
    }
    const causedBy = { runId: caller.runId, agentId: caller.agentId, depth: caller.depth + 1 };
    return this.queue(ctx, { ...this.freshRun(ctx.principal, agent), origin, eventId: null, eventKind: null, eventSubject: null, causedBy, depth: causedBy.depth }, beforeEnqueue);
  }

  /**
   * A new run of an ended run's agent, at its version for runs (pinned, else latest), for the same
   * fact (or, for a manual run, the same input, copied onto the retry's origin).
   * It keeps the original's causation, so a retry cannot escape the depth cap.
   */
  async retry(ctx: RunCommandContext, runId: string): Promise<RunRecord> {
    const original = await this.deps.runs.get(ctx.principal.workspaceId, runId);
    if (!original) throw runNotFound(runId);
    // A retry would run a try's agent for real: a try is tried again instead (decision 0027).
    if (original.origin.type === 'try') throw new AppError(ErrorCode.RUN_NOT_RETRYABLE, 'a try run is not retried: try the agent again', { id: runId });
    // A crafting turn belongs to its conversation (decision 0056): the person sends the message again on the page.
    if (original.origin.type === 'craft') throw new AppError(ErrorCode.RUN_NOT_RETRYABLE, 'a crafting turn is not retried: send the message again', { id: runId });
    if (!isTerminalRunStatus(original.status)) {
      throw new AppError(ErrorCode.RUN_NOT_FINISHED, 'only a run that has ended can be retried: stop it first', { id: runId, status: original.status });
    }
    if (original.origin.type === 'teammate') {
      // A teammate's turn reads its mailbox: what it missed waits there for its next turn.
      throw new AppError(ErrorCode.VALIDATION_FAILED, "a teammate's turn is not retried: message the teammate", [
        { code: 'teammate_turn', path: ['id'], message: 'message the teammate instead' },
      ]);
    }
    const agent = await this.runnableAgent(ctx.principal, original.agentId);
    const eventId = original.eventId ?? (original.origin.type === 'trigger' || original.origin.type === 'retry' || original.origin.type === 'backfill' ? original.origin.eventId : undefined);
    // A manual run's input goes with its retries (and theirs), so the retried run is told the same thing;
    // a delegated run's retry is told its objective as a manual input.
    const input = inputOf(original.origin);
    const origin: RunOrigin = {
      type: 'retry',
      retryOf: original.id,
      userId: ctx.principal.userId,
      ...(eventId === undefined ? {} : { eventId }),
      ...(input === undefined ? {} : { input }),
    };
    return this.queue(ctx, {
      ...this.freshRun(ctx.principal, agent),
      origin,
      eventId: eventId ?? null,
      eventKind: original.eventKind,
      eventSubject: original.eventSubject,
      causedBy: original.causedBy,
      depth: original.depth,
    });
  }

  /**
   * Stops a run (decision 0028): a queued or parked one is cancelled at once
   * (a parked run's pending approvals are closed `denied` by the platform); a
   * running one is flagged, and its runner cancels it at its next step. With
   * `cascade`, every non-ended run it caused, transitively, is stopped the
   * same way — also when the run itself has already ended. Refused as
   * RUN_NOT_ACTIVE only when nothing was left to stop.
   */
  async stop(ctx: RunCommandContext, runId: string, cascade = true): Promise<{ run: RunRecord; action: StopAction; stopped: StoppedRun[] }> {
    const { workspaceId } = ctx.principal;
    const result = await this.deps.runs.stop(workspaceId, runId, ctx.correlationId);
    if (!result.ok && result.reason === 'not_found') throw runNotFound(runId);
    const stopped: StoppedRun[] = result.ok ? [stoppedOf(result)] : [];
    if (cascade) {
      for (const id of await this.deps.runs.activeDescendants(workspaceId, runId)) {
        const caused = await this.deps.runs.stop(workspaceId, id, ctx.correlationId);
        // One that ended meanwhile is left as it ended.
        if (caused.ok) stopped.push(stoppedOf(caused));
      }
    }
    if (!result.ok) {
      if (stopped.length === 0) throw new AppError(ErrorCode.RUN_NOT_ACTIVE, 'the run has already ended', { id: runId, status: result.status });
      const run = await this.deps.runs.get(workspaceId, runId);
      return { run: run!, action: 'none', stopped };
    }
    return { run: result.run, action: result.action, stopped };
  }

  /** The live agent, refused when it is disabled or the workspace kill switch is on. */
  private async runnableAgent(principal: Principal, agentId: string): Promise<AgentRecord> {
    const agent = await this.deps.agents.get(principal.workspaceId, agentId);
    if (!agent) throw new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent in this workspace', { id: agentId });
    if (!agent.enabled) throw new AppError(ErrorCode.AGENT_DISABLED, 'the agent is disabled: enable it to run it', { id: agentId });
    if ((await this.deps.settings.get(principal.workspaceId)).agentsPaused) {
      throw new AppError(ErrorCode.AGENTS_PAUSED, 'agents are paused in this workspace (settings.agentsPaused)', { workspace: principal.workspaceSlug });
    }
    return agent;
  }

  /** A new run's ids and the version it runs: the pinned one when set, else the latest (decision 0046). */
  private freshRun(principal: Principal, agent: AgentRecord) {
    return { id: newId(), workspaceId: principal.workspaceId, agentId: agent.id, agentVersion: runVersionOf(agent), sessionId: newId() };
  }

  /**
   * Commits the run (with its `agent.run.queued`), then enqueues its job. A
   * job that cannot be enqueued leaves no run waiting for nothing: the run is
   * failed and the client gets 503 to try again.
   */
  private async queue(ctx: RunCommandContext, newRun: NewRun, beforeEnqueue?: (run: RunRecord) => Promise<void>): Promise<RunRecord> {
    const run = await this.deps.runs.create(newRun);
    await wakeNewRun(this.deps, run, 'run', beforeEnqueue && (() => beforeEnqueue(run)));
    return run;
  }
}

/** What a retry of a run of this origin is told first; undefined for trigger runs (they get their fact). */
function inputOf(origin: RunOrigin): string | undefined {
  if (origin.type === 'trigger' || origin.type === 'teammate' || origin.type === 'backfill' || origin.type === 'craft') return undefined;
  if (origin.type === 'delegation') return delegationMessage(origin);
  return origin.input;
}

function stoppedOf(result: Extract<StopRunResult, { ok: true }>): StoppedRun {
  return { id: result.run.id, agentId: result.run.agentId, status: result.run.status, action: result.action, approvalsClosed: result.approvalsClosed };
}

function runNotFound(id: string): AppError {
  return new AppError(ErrorCode.RUN_NOT_FOUND, 'no such run in this workspace', { id });
}
