import { AppError, ErrorCode, MAX_CRAFT_STEPS, TryAgentDraftArgumentsSchema, type CraftEvent, type CraftMessageRequest, type Fact, type TryAgentDraftArguments } from '@switchyard/contracts';
import { compileFilter } from '@switchyard/core';
import type { Logger } from '@switchyard/logging';
import type { AgentStore, StoredAgentSpec } from '../agent-ports';
import type { Principal } from '../auth-ports';
import { CraftModelError, type CraftChatMessage, type CraftModel, type CraftModelAnswer, type CraftToolCall } from '../craft-ports';
import type { FactReader } from '../fact-ports';
import type { TryStore } from '../try-ports';
import { applyCraftPatch, CRAFT_INSTRUCTIONS, CRAFT_TOOLS, patchEvent } from './craft-tools';
import type { TryAgent } from './try-agent';

/** What CraftAgent needs. */
export interface CraftAgentDeps {
  /** The crafting model; null when CRAFT_MODEL_BASE_URL is unset (every message is then refused). */
  model: CraftModel | null;
  tryAgent: Pick<TryAgent, 'try'>;
  agents: Pick<AgentStore, 'get'>;
  tries: Pick<TryStore, 'hasTries'>;
  reader: Pick<FactReader, 'listBefore'>;
  log: Logger;
}

/** Facts looked at per trigger when a try names none (the newest matching one is replayed). */
const FACTS_PER_TRIGGER = 50;

/**
 * Conversational crafting (decision 0056): one message of a person runs the
 * built-in crafting agent over the canvas. Each model answer's `craft_agent`
 * patches are applied to the draft (all or nothing, validated as a spec) and
 * its `try_agent_draft` calls start a shadow try (TryAgent, decision 0027);
 * every outcome is emitted as it happens and told to the model, which goes on
 * until it answers without tool calls (at most MAX_CRAFT_STEPS calls).
 */
export class CraftAgent {
  constructor(private readonly deps: CraftAgentDeps) {}

  /** Refuses before anything streams: crafting off, an agent token, another workspace's (or unknown) agent. */
  async check(principal: Principal, body: CraftMessageRequest): Promise<void> {
    if (!this.deps.model) throw new AppError(ErrorCode.CRAFTING_NOT_CONFIGURED, 'conversational crafting has no model: set CRAFT_MODEL_BASE_URL on the gateway');
    if (principal.agent) throw new AppError(ErrorCode.TRY_BY_AGENT_REFUSED, 'only people craft agents: an agent token cannot');
    if (body.agentId === undefined) return;
    const known = (await this.deps.agents.get(principal.workspaceId, body.agentId)) !== null || (await this.deps.tries.hasTries(principal.workspaceId, body.agentId));
    if (!known) throw new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent (or draft with tries) in this workspace', { id: body.agentId });
  }

  /** Runs the crafting agent on one message; `emit` gets each event, the last `done` or `error`. */
  async message(ctx: { principal: Principal; correlationId: string }, body: CraftMessageRequest, emit: (event: CraftEvent) => void, signal: AbortSignal): Promise<void> {
    const model = this.deps.model!;
    const { enabled: _enabled, ...canvas } = body.draft;
    const session = { draft: canvas as StoredAgentSpec, agentId: body.agentId };
    const messages: CraftChatMessage[] = [
      { role: 'system', content: CRAFT_INSTRUCTIONS },
      ...body.history.map((turn): CraftChatMessage => (turn.role === 'assistant' ? { role: 'assistant', content: turn.content, toolCalls: [] } : { role: 'user', content: turn.content })),
      { role: 'user', content: `${body.message}\n\n--- the canvas now:\n${JSON.stringify(session.draft)}` },
    ];
    for (let step = 1; step <= MAX_CRAFT_STEPS; step++) {
      let answer: CraftModelAnswer;
      try {
        answer = await model.complete({ messages, tools: CRAFT_TOOLS, signal });
      } catch (error) {
        if (signal.aborted) return;
        const code = error instanceof CraftModelError ? error.code : 'model_failed';
        this.deps.log.warn({ err: error, correlationId: ctx.correlationId }, 'crafting model call failed');
        emit({ type: 'error', code, message: error instanceof Error ? error.message : 'the model call failed' });
        return;
      }
      if (answer.message) emit({ type: 'say', text: answer.message });
      if (answer.toolCalls.length === 0) return emit({ type: 'done', steps: step });
      messages.push({ role: 'assistant', content: answer.message, toolCalls: answer.toolCalls });
      for (const call of answer.toolCalls) {
        const result = await this.call(ctx, session, call, emit);
        messages.push({ role: 'tool', toolCallId: call.id, content: JSON.stringify(result) });
      }
    }
    emit({ type: 'done', steps: MAX_CRAFT_STEPS });
  }

  /** One tool call: its outcome is emitted to the page and returned for the model. */
  private async call(ctx: { principal: Principal; correlationId: string }, session: { draft: StoredAgentSpec; agentId?: string }, call: CraftToolCall, emit: (event: CraftEvent) => void): Promise<unknown> {
    const { principal } = ctx;
    if (call.name === 'craft_agent') {
      const outcome = applyCraftPatch(session.draft, call.arguments);
      emit(patchEvent(outcome));
      if (!outcome.ok) return { ok: false, code: outcome.code, message: outcome.message, issues: outcome.issues };
      session.draft = outcome.draft;
      return { ok: true, draft: outcome.draft };
    }
    if (call.name === 'try_agent_draft') {
      const refused = (code: string, message: string) => {
        emit({ type: 'try_refused', code, message });
        return { ok: false, code, message };
      };
      let args: TryAgentDraftArguments;
      try {
        args = TryAgentDraftArgumentsSchema.parse(JSON.parse(call.arguments || '{}'));
      } catch {
        return refused('TRY_ARGUMENTS_INVALID', 'the arguments are not {eventId?}');
      }
      const eventId = args.eventId ?? (await this.newestMatchingFact(principal, session.draft))?.id;
      if (!eventId) return refused('NO_FACT_TO_REPLAY', "no recorded fact matches the draft's triggers yet");
      try {
        const tried = await this.deps.tryAgent.try(ctx, { spec: session.draft, eventId, ...(session.agentId ? { agentId: session.agentId } : {}) });
        session.agentId = tried.agentId;
        emit({ type: 'try', runId: tried.runId, agentId: tried.agentId, eventId });
        return { ok: true, runId: tried.runId, eventId, note: 'the try runs in shadow; the person watches its result on the page' };
      } catch (error) {
        if (error instanceof AppError) return refused(error.code, error.message);
        throw error;
      }
    }
    return { ok: false, code: 'TOOL_UNKNOWN', message: `no tool ${call.name}: use craft_agent or try_agent_draft` };
  }

  /** The newest recorded fact any of the draft's triggers matches (kind and filter). */
  private async newestMatchingFact(principal: Principal, draft: StoredAgentSpec): Promise<Fact | undefined> {
    const workspace = { id: principal.workspaceId, slug: principal.workspaceSlug };
    let newest: Fact | undefined;
    for (const trigger of draft.triggers) {
      const holds = trigger.filter ? compileFilter(trigger.filter) : () => true;
      const facts = await this.deps.reader.listBefore(workspace, undefined, { kindGlob: trigger.kind, limit: FACTS_PER_TRIGGER });
      const found = facts.find((fact) => holds(fact));
      if (found && (!newest || found.seq > newest.seq)) newest = found;
    }
    return newest;
  }
}
