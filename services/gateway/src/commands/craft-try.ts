import { AppError, ErrorCode, type Fact, type TryCraftedDraftToolInput } from '@switchyard/contracts';
import { compileFilter } from '@switchyard/core';
import type { FactReader } from '../fact-ports';
import type { TryAgent, TryCommandContext } from './try-agent';

/** Facts looked at per trigger when a crafting try names none (the newest matching one is replayed). */
const FACTS_PER_TRIGGER = 50;

/** What a crafting try needs. */
export interface CraftTryDeps {
  tryAgent: Pick<TryAgent, 'try'>;
  reader: Pick<FactReader, 'listBefore'>;
}

/**
 * `try_crafted_draft` (decision 0056): a crafting turn's shadow try of its
 * draft, for the person crafting — only a crafting run's token may ask. The
 * fact is the one named, else the newest recorded one a trigger of the draft
 * matches (kind glob and filter; FACTS_PER_TRIGGER looked at per trigger).
 */
export async function tryCraftedDraft(deps: CraftTryDeps, ctx: TryCommandContext, input: TryCraftedDraftToolInput): Promise<{ runId: string; agentId: string; eventId: string }> {
  if (!ctx.principal.crafting) throw new AppError(ErrorCode.FORBIDDEN, 'only a crafting run tries its draft this way: use try_agent');
  const eventId = input.eventId ?? (await newestMatchingFact(deps, ctx, input.spec))?.id;
  if (!eventId) throw new AppError(ErrorCode.NO_FACT_TO_REPLAY, "no recorded fact matches the draft's triggers yet");
  const tried = await deps.tryAgent.try(ctx, { spec: input.spec, eventId, ...(input.agentId ? { agentId: input.agentId } : {}) });
  return { runId: tried.runId, agentId: tried.agentId, eventId };
}

async function newestMatchingFact(deps: CraftTryDeps, ctx: TryCommandContext, draft: TryCraftedDraftToolInput['spec']): Promise<Fact | undefined> {
  const workspace = { id: ctx.principal.workspaceId, slug: ctx.principal.workspaceSlug };
  let newest: Fact | undefined;
  for (const trigger of draft.triggers) {
    const holds = trigger.filter ? compileFilter(trigger.filter) : () => true;
    const facts = await deps.reader.listBefore(workspace, undefined, { kindGlob: trigger.kind, limit: FACTS_PER_TRIGGER });
    const found = facts.find((fact) => holds(fact));
    if (found && (!newest || found.seq > newest.seq)) newest = found;
  }
  return newest;
}
