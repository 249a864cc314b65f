import type { AgentSpec } from '@switchyard/contracts';

/**
 * What conversational crafting (decision 0056) reads beside the agents and
 * runs: the workspace's built-in crafting agent and its conversations. Every
 * read is scoped by workspace id.
 */
export interface CraftingStore {
  /** The live built-in crafting agent's id (by its reserved name), or null before the first crafting message. */
  craftingAgentId(workspaceId: string): Promise<string | null>;
  /** Who holds the crafting conversation `sessionId` (the person of its first turn), or null: no such conversation in this workspace. */
  conversationOwner(workspaceId: string, sessionId: string): Promise<string | null>;
}

/** The operator's crafting model (CRAFT_MODEL, and CRAFT_SCRIPT for the scripted provider); null: crafting is off. */
export interface CraftingModel {
  model: AgentSpec['model'];
  script?: AgentSpec['script'];
}
