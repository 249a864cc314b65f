/** What a run's agent token is minted for. */
export interface MintAgentTokenInput {
  workspaceId: string;
  runId: string;
  agentId: string;
  /** The run's causation depth: facts emitted with the token carry `depth + 1`. */
  depth: number;
  /** How long the token lives if it is never revoked (a runner that dies mid-run). */
  ttlMs: number;
  /** The member the token acts as instead of the agent's creator (a try run acts as who tried it). @defaultValue the agent's creator */
  userId?: string;
}

/**
 * Short-lived bearer tokens for the platform's own MCP tools (`/mcp` on the
 * gateway) and REST API, one per run. A token acts as the agent's creator in
 * the run's workspace only; the runner revokes it when the run ends.
 * docs/decisions/0014-platform-mcp-and-agent-tokens.md.
 */
export interface AgentTokens {
  /**
   * Mints the run's token and returns its secret (shown only here; only its
   * SHA-256 is stored). Minting again for the same run replaces the token, so
   * the earlier secret stops working. Rejects when the agent is not in the
   * workspace.
   */
  mint(input: MintAgentTokenInput): Promise<{ token: string }>;
  /** Revokes the run's token; idempotent (no token, or already revoked, is fine). */
  revoke(runId: string): Promise<void>;
}
