/**
 * The runner's tool host: the port the agent loop calls tools through. The
 * MCP implementation is connectTools (mcp-tool-host.ts); a test can pass any
 * other implementation.
 */
import type { ToolErrorCode } from '@switchyard/contracts';

/** One tool a run may call. */
export interface ToolDefinition {
  /**
   * `<server>.<tool>`: the agent's MCP server name, a dot, the tool's name on
   * that server (`github.create_issue`); platform tools are `platform.<tool>`.
   * Server names have no dot, so the first dot splits the two.
   */
  name: string;
  /** The name the model sees (OpenAI function-name rule); see toModelToolName. */
  modelName: string;
  /** The server's description, capped. Untrusted text: data, never instructions. */
  description: string;
  /** JSON Schema of the arguments (an object schema), as the server declared it. */
  inputSchema: Record<string, unknown>;
  /** The agent's server name, or `platform`. */
  server: string;
  /**
   * The server says the tool changes nothing (`readOnlyHint`). A hint: from an
   * untrusted server it may tighten a policy, never loosen it (no approval is
   * skipped because an untrusted server calls a tool read-only).
   */
  readOnly: boolean;
  /** The server does not say the tool is harmless: `destructiveHint` is not `false` (MCP's default is true). */
  destructive: boolean;
  /** The server is the platform's own (its hints can be relied on). */
  trusted: boolean;
}

/** Stable codes of a failed tool call, which reach transcripts: the contracts' TOOL_ERROR_CODES. */
export type { ToolErrorCode };

/** A tool call's outcome: never thrown. `content` is text, capped (see ToolHostOptions.maxResultBytes). */
export type ToolCallResult =
  /** `wouldHave`: a shadow run's call that was not executed; `content` is the fixed placeholder (ShadowToolHost). */
  | { ok: true; content: string; durationMs: number; wouldHave?: true }
  | { ok: false; error: { code: ToolErrorCode; message: string }; durationMs: number };

/**
 * Something about a server the run should record (in its transcript): it was
 * refused or could not be listed (its tools are missing), or some of its tools
 * were left out. Codes: `server_not_allowed`, `url_invalid`, `url_not_allowed`,
 * `url_unresolvable`, `secret_unavailable`, `connect_timeout`, `connect_failed`,
 * `connect_cancelled`, `tools_skipped`.
 */
export interface ToolServerNotice {
  server: string;
  error: { code: string; message: string };
}

/** The tools of one run. */
export interface ToolHost {
  /** Every tool of every listed server, in server order. */
  tools(): ToolDefinition[];
  /** Calls a tool by its `name` (not its modelName). Never throws, never outlives the call timeout. */
  call(name: string, args: unknown, signal: AbortSignal): Promise<ToolCallResult>;
  /**
   * Starts opening the sessions these tools' servers need, without waiting:
   * a call that follows finds its server connected or connecting. For a
   * resumed run's approved calls, whose connect can overlap the reads before them.
   */
  prepare?(names: readonly string[]): void;
  /** Ends every session the run opened (stdio children are stopped). Idempotent. */
  close(): Promise<void>;
}

/** The gateway's own MCP endpoint, for the platform tools of a run. */
export interface PlatformToolServer {
  /** The gateway's `/mcp` URL. Trusted: not checked against address ranges. */
  url: string;
  /** The run's agent token, sent as `Authorization: Bearer <token>`. */
  token: string;
  /** The agent's `tools.platform` globs; only matching tools are exposed. None: no platform tools. */
  toolGlobs: readonly string[];
  /**
   * Whom the token acts as (`agent:<id>`, a try's `try:<agent>:<user>`): what
   * the gateway's listing depends on, so the listing cache's key (the token is new each run).
   */
  principal: string;
}
