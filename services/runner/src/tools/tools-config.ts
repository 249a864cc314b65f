import { z } from 'zod';
import { envBoolean, envList } from '@switchyard/config';

/**
 * The runner's MCP tool variables; RunnerEnvSchema extends it
 * (`.extend(ToolsEnvSchema.shape)`). Operator configuration on purpose: an
 * agent spec (the API) can never widen what the runner's machine runs or reaches.
 */
export const ToolsEnvSchema = z.object({
  /**
   * Commands a stdio MCP server may run, comma-separated, compared with the
   * spec's `command` exactly (`npx` and `/usr/bin/npx` are different entries).
   * Allowing an interpreter (`node`, `python`) allows any code its arguments
   * name: prefer wrapper scripts. @defaultValue '' (no stdio servers)
   */
  RUNNER_MCP_STDIO_COMMANDS: envList,
  /** Let HTTP MCP servers on private, loopback and link-local addresses through (local development, tests); metadata addresses stay refused. Models have their own setting, RUNNER_MODEL_ALLOW_PRIVATE. @defaultValue false */
  RUNNER_MCP_ALLOW_PRIVATE: envBoolean.default(false),
  /** Hosts (names or IP literals, comma-separated) HTTP MCP servers may use whatever they resolve to. @defaultValue '' */
  RUNNER_MCP_ALLOWED_HOSTS: envList,
  /** Longest a server may take to connect (and, on a listing, to list its tools). @defaultValue 10000 */
  RUNNER_MCP_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  /** Longest one tool call may take; then it is cancelled and fails `tool_timeout`. @defaultValue 60000 */
  RUNNER_MCP_CALL_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /**
   * Tool-name globs (`server.tool`, comma-separated) that are guarded whatever
   * their server says: `auto` asks about them, `default` too (docs/tool-classes.md).
   * Agents can only tighten further (`rules.ask`). @defaultValue '' (none)
   */
  RUNNER_GUARDED_TOOLS: envList,
  /**
   * How long this runner serves an MCP server's tool list to new runs before
   * asking the server again (per workspace, server spec and credentials); a
   * run connects to a server only at its first call of it. @defaultValue 60000
   */
  RUNNER_MCP_TOOL_LIST_TTL_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
  /**
   * Sockets to one HTTP MCP server host, shared by every run of the process (a run holds one only
   * while its request is out): a call beyond them waits for a free one, within its timeout.
   * @defaultValue the run capacity (RUNNER_CONCURRENCY)
   */
  RUNNER_MCP_CONNECTIONS: z.coerce.number().int().min(1).max(100_000).optional(),
  /** Most UTF-8 bytes of a tool result the model sees; the rest is cut with a marker. @defaultValue 16384 */
  RUNNER_MCP_MAX_RESULT_BYTES: z.coerce.number().int().min(1_024).max(1_048_576).default(16_384),
});
export type ToolsConfig = z.infer<typeof ToolsEnvSchema>;

/** What connectTools enforces, from the runner's configuration. */
export interface ToolHostOptions {
  /** See RUNNER_MCP_STDIO_COMMANDS. @defaultValue [] */
  stdioCommands: readonly string[];
  /** See RUNNER_MCP_ALLOW_PRIVATE. @defaultValue false */
  allowPrivate: boolean;
  /** See RUNNER_MCP_ALLOWED_HOSTS. @defaultValue [] */
  allowedHosts: readonly string[];
  /** See RUNNER_MCP_CONNECT_TIMEOUT_MS. @defaultValue 10000 */
  connectTimeoutMs: number;
  /** See RUNNER_MCP_CALL_TIMEOUT_MS. @defaultValue 60000 */
  callTimeoutMs: number;
  /** See RUNNER_MCP_MAX_RESULT_BYTES. @defaultValue 16384 */
  maxResultBytes: number;
  /** Most tools taken from one server; more are left out with a notice. @defaultValue 128 */
  maxToolsPerServer: number;
}

/** The defaults of ToolHostOptions (nothing local allowed, no stdio). */
export const DEFAULT_TOOL_HOST_OPTIONS: ToolHostOptions = {
  stdioCommands: [],
  allowPrivate: false,
  allowedHosts: [],
  connectTimeoutMs: 10_000,
  callTimeoutMs: 60_000,
  maxResultBytes: 16_384,
  maxToolsPerServer: 128,
};

/** ToolHostOptions from the parsed environment. */
export function toolHostOptions(config: ToolsConfig): ToolHostOptions {
  return {
    ...DEFAULT_TOOL_HOST_OPTIONS,
    stdioCommands: config.RUNNER_MCP_STDIO_COMMANDS,
    allowPrivate: config.RUNNER_MCP_ALLOW_PRIVATE,
    allowedHosts: config.RUNNER_MCP_ALLOWED_HOSTS,
    connectTimeoutMs: config.RUNNER_MCP_CONNECT_TIMEOUT_MS,
    callTimeoutMs: config.RUNNER_MCP_CALL_TIMEOUT_MS,
    maxResultBytes: config.RUNNER_MCP_MAX_RESULT_BYTES,
  };
}
