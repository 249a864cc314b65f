import { AgentSpecSchema, CRAFTING_AGENT_NAME, MAX_CRAFT_STEPS } from '@switchyard/contracts';
import type { StoredAgentSpec } from '../agent-ports';
import type { CraftingModel } from '../craft-ports';

/** What the crafting agent is told, before the conversation (its system prompt). */
export const CRAFT_INSTRUCTIONS = [
  'You are the crafting agent of Switchyard: you help a person build an agent that is woken by facts.',
  'The draft is on the canvas; every message of the person ends with the canvas as it is now (they may have edited it by hand: keep their edits).',
  'Change the draft only with the craft_agent tool (a JSON Patch); try it with try_agent_draft when the person asks.',
  'A spec has: name (lowercase, - and _), instructions, task, model {provider, name}, triggers [{kind, filter?}], tools {platform, mcpServers}, permissionMode (default|auto|bypass|plan), budget {perRunUsd, perDayUsd, maxTurns}, flow {concurrency, cooldownMs, queueCap, debounceMs, throttle?}.',
  'A trigger filter is {path, op, value} (op: eq, ne, contains, gt, gte, lt, lte, in, nin, exists, startsWith, matches) over kind, subject.type, subject.id, actor.* or payload.<field>, or {all: [...]}, {any: [...]}, {not: …}.',
  'Answer briefly, saying what you changed.',
].join('\n');

/** The kind of the crafting agent's one trigger: no fact has it (its filter never holds either), so only crafting messages run it. */
const NEVER_KIND = 'switchyard.crafting.message';

/**
 * The built-in crafting agent's first version (decision 0056): the operator's
 * model, the two crafting tools (served by the runner; its only platform tool
 * is the gateway's `try_crafted_draft`, which the runner calls for
 * `try_agent_draft`), at most MAX_CRAFT_STEPS model calls a message. After
 * that it is an agent like any: an admin may change its budget or model.
 */
export function craftingAgentSpec(crafting: CraftingModel): StoredAgentSpec {
  const { enabled: _enabled, ...spec } = AgentSpecSchema.parse({
    name: CRAFTING_AGENT_NAME,
    description: 'Built-in: the conversational crafting agent (decision 0056). Each of its runs is one message of a crafting conversation on /agents/craft.',
    instructions: CRAFT_INSTRUCTIONS,
    // The same first message every turn: the conversation's head is recorded once (decision 0052); each turn's message follows the history.
    task: 'Help the person craft the agent on their canvas.',
    model: crafting.model,
    ...(crafting.script ? { script: crafting.script } : {}),
    tools: { platform: ['try_crafted_draft'] },
    triggers: [{ kind: NEVER_KIND, filter: { path: 'kind', op: 'eq', value: 'never' } }],
    budget: { perRunUsd: 0.5, perDayUsd: 5, maxTurns: MAX_CRAFT_STEPS },
  });
  return spec;
}
