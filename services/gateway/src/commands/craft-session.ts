import {
  AppError,
  CRAFT_TOOL_NAMES,
  CraftAgentResultSchema,
  ErrorCode,
  TERMINAL_RUN_STATUSES,
  TryAgentDraftResultSchema,
  type CraftEvent,
  type CraftMessageRequest,
  type RunStatus,
  type TranscriptEntry,
} from '@switchyard/contracts';
import { newId, runVersionOf } from '@switchyard/core';
import type { Logger } from '@switchyard/logging';
import type { AgentStore } from '../agent-ports';
import type { Principal } from '../auth-ports';
import type { CraftingModel, CraftingStore } from '../craft-ports';
import type { ActivationSink, RunStore, TranscriptReader } from '../run-ports';
import type { SettingsStore } from '../settings-ports';
import type { TryStore } from '../try-ports';
import type { AgentRegistry } from './agent-registry';
import { craftingAgentSpec } from './crafting-agent-spec';
import { wakeNewRun } from './wake-new-run';

/** What CraftSession needs. */
export interface CraftSessionDeps {
  /** The operator's crafting model; null when CRAFT_MODEL is unset (every message is then refused). */
  model: CraftingModel | null;
  crafting: CraftingStore;
  registry: Pick<AgentRegistry, 'create'>;
  agents: Pick<AgentStore, 'get'>;
  tries: Pick<TryStore, 'hasTries'>;
  runs: Pick<RunStore, 'create' | 'get' | 'fail'>;
  activations: ActivationSink;
  /** The kill switch (`agentsPaused`): a crafting turn is a run like a manual one. */
  settings: Pick<SettingsStore, 'get'>;
  transcripts: TranscriptReader;
  /** The runner's announcements of the turn's flushes and ending (RunNewsSubscriber): the answer reads on each. */
  news: { subscribe(runId: string, listener: () => void): Promise<() => void> };
  /** How often the answer reads anyway, for an announcement lost (CRAFT_STREAM_POLL_MS). */
  pollMs: number;
  log: Logger;
}

/** Who sends, and the id of the request. */
export interface CraftContext {
  principal: Principal;
  correlationId: string;
}

const TERMINAL = new Set<RunStatus>(TERMINAL_RUN_STATUSES);

/**
 * Conversational crafting (decision 0056): each message of a person is a turn
 * — a `craft` run — of the workspace's built-in crafting agent (created on
 * the first message), in the conversation's session, so the conversation is
 * the session's transcript, in the fleet, under the agent's budget and spend.
 * The runner serves `craft_agent` and `try_agent_draft`; the answer follows
 * the run's transcript and turns each tool result into the page's event.
 */
export class CraftSession {
  /** The crafting agent's id per workspace: it never changes while the agent lives, so a message reads the agent (its version) only. */
  private readonly craftingAgentIds = new Map<string, string>();

  constructor(private readonly deps: CraftSessionDeps) {}

  /** Refuses before anything streams: crafting off, an agent token, agents paused, an unknown agent, another's (or unknown) conversation. */
  async check(principal: Principal, body: CraftMessageRequest): Promise<void> {
    if (!this.deps.model) throw new AppError(ErrorCode.CRAFTING_NOT_CONFIGURED, 'conversational crafting has no model: set CRAFT_MODEL on the gateway');
    if (principal.agent) throw new AppError(ErrorCode.TRY_BY_AGENT_REFUSED, 'only people craft agents: an agent token cannot');
    if ((await this.deps.settings.get(principal.workspaceId)).agentsPaused) {
      throw new AppError(ErrorCode.AGENTS_PAUSED, 'agents are paused in this workspace (settings.agentsPaused)', { workspace: principal.workspaceSlug });
    }
    if (body.sessionId !== undefined && (await this.deps.crafting.conversationOwner(principal.workspaceId, body.sessionId)) !== principal.userId) {
      throw new AppError(ErrorCode.SESSION_NOT_FOUND, 'no such crafting conversation of yours in this workspace', { id: body.sessionId });
    }
    if (body.agentId === undefined) return;
    const known = (await this.deps.agents.get(principal.workspaceId, body.agentId)) !== null || (await this.deps.tries.hasTries(principal.workspaceId, body.agentId));
    if (!known) throw new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent (or draft with tries) in this workspace', { id: body.agentId });
  }

  /** Queues the message as the conversation's next turn; returns the `started` event. */
  async start(ctx: CraftContext, body: CraftMessageRequest): Promise<Extract<CraftEvent, { type: 'started' }>> {
    const { principal } = ctx;
    const agent = await this.craftingAgent(ctx);
    const { enabled: _enabled, ...canvas } = body.draft;
    const sessionId = body.sessionId ?? newId();
    const run = await this.deps.runs.create({
      id: newId(),
      workspaceId: principal.workspaceId,
      agentId: agent.id,
      agentVersion: runVersionOf(agent),
      origin: { type: 'craft', userId: principal.userId, message: body.message, canvas, ...(body.agentId ? { agentId: body.agentId } : {}) },
      eventId: null,
      eventKind: null,
      eventSubject: null,
      causedBy: null,
      depth: 0,
      sessionId,
    });
    await wakeNewRun(this.deps, run, 'run');
    return { type: 'started', runId: run.id, sessionId, agentId: agent.id };
  }

  /**
   * Emits the turn's events as its transcript grows, until the run ends (or
   * `signal`: the person left): each `craft_agent` result a `patch` or
   * `patch_refused`, each `try_agent_draft` result a `try` or `try_refused`,
   * each answer's text a `say`, then `done` or `error`.
   */
  async follow(principal: Principal, runId: string, emit: (event: CraftEvent) => void, signal: AbortSignal): Promise<void> {
    let after = 0;
    let steps = 0;
    const read = async () => {
      for (;;) {
        const entries = await this.deps.transcripts.listForRun(principal.workspaceId, runId, { after, limit: 500 });
        for (const entry of entries) {
          if (entry.type === 'assistant') steps++;
          const event = eventOf(entry);
          if (event) emit(event);
        }
        if (entries.length < 500) return;
        after = entries.at(-1)!.seq;
      }
    };
    // Read when the runner announces a flush or the ending (pushed, not polled); news during a read makes one more read.
    // Cleared before each read (the loop's first statement), set by an announcement.
    let news: boolean;
    let wake: (() => void) | undefined;
    const heard = () => {
      news = true;
      wake?.();
    };
    const unsubscribe = await this.deps.news.subscribe(runId, heard);
    signal.addEventListener('abort', heard);
    try {
      // Subscribed before the first read: what was flushed before is read, what is flushed after is announced.
      while (!signal.aborted) {
        news = false;
        // The entries first: a patch goes out without waiting on the status read.
        await read();
        const run = await this.deps.runs.get(principal.workspaceId, runId);
        if (!run || TERMINAL.has(run.status)) {
          // Once more after the status: a run seen ended has flushed its whole transcript.
          await read();
          if (run?.status === 'completed') return emit({ type: 'done', steps });
          return emit({ type: 'error', code: run?.error?.code ?? run?.reason ?? 'run_lost', message: run?.error?.message ?? `the crafting run ended ${run?.status ?? 'unseen'}` });
        }
        if (news) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.deps.pollMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    } finally {
      signal.removeEventListener('abort', heard);
      unsubscribe();
    }

    function eventOf(entry: TranscriptEntry): CraftEvent | null {
      after = entry.seq;
      const content = entry.content;
      if (entry.type === 'assistant') return typeof content.text === 'string' && content.text ? { type: 'say', text: content.text } : null;
      if (entry.type !== 'tool' || content.ok !== true || typeof content.result !== 'string') return null;
      return toolEvent(String(content.name), content.result);
    }
  }

  /** The workspace's crafting agent, created (enabled, recorded `agent.created`) on the first message. */
  private async craftingAgent(ctx: CraftContext) {
    const workspaceId = ctx.principal.workspaceId;
    const cached = this.craftingAgentIds.get(workspaceId);
    const known = cached ? await this.deps.agents.get(workspaceId, cached) : null;
    if (known) return known;
    // Not cached, or gone (deleted): look it up by name.
    const found = await this.deps.crafting.craftingAgentId(workspaceId);
    const existing = found ? await this.deps.agents.get(workspaceId, found) : null;
    if (existing) {
      this.craftingAgentIds.set(workspaceId, existing.id);
      return existing;
    }
    try {
      const created = await this.deps.registry.create(ctx, craftingAgentSpec(this.deps.model!), true);
      this.craftingAgentIds.set(workspaceId, created.id);
      return created;
    } catch (error) {
      // Two first messages at once: the other made it.
      const raced = await this.deps.crafting.craftingAgentId(workspaceId);
      const agent = raced ? await this.deps.agents.get(workspaceId, raced) : null;
      if (agent) return agent;
      throw error;
    }
  }
}

/** The page's event for a crafting tool's result in the transcript (a boundary: the runner wrote it). */
function toolEvent(name: string, result: string): CraftEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(result);
  } catch {
    return null;
  }
  if (name === CRAFT_TOOL_NAMES.patch) {
    const parsed = CraftAgentResultSchema.safeParse(json);
    if (!parsed.success) return null;
    const outcome = parsed.data;
    if (outcome.ok) return { type: 'patch', patch: outcome.patch, draft: outcome.draft };
    return { type: 'patch_refused', code: outcome.code, message: outcome.message, ...(outcome.issues ? { issues: outcome.issues } : {}) };
  }
  if (name === CRAFT_TOOL_NAMES.try) {
    const parsed = TryAgentDraftResultSchema.safeParse(json);
    if (!parsed.success) return null;
    const tried = parsed.data;
    if (tried.ok) return { type: 'try', runId: tried.runId, agentId: tried.agentId, eventId: tried.eventId };
    return { type: 'try_refused', code: tried.code, message: tried.message };
  }
  return null;
}
