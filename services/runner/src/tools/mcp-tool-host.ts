import { type McpServer, TOOL_ERROR_CODES } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import { connectAgentServer, connectPlatformServer, type ConnectContext, type ConnectOutcome, type McpConnection } from './mcp-connection';
import { callMcpTool } from './mcp-tool-call';
import { describeError } from './tool-errors';
import type { PlatformToolServer, ToolCallResult, ToolDefinition, ToolHost, ToolServerNotice } from './tool-host';
import { matchesToolGlob, qualifyToolName, toModelToolName } from './tool-names';
import { capText } from './tool-result';
import { DEFAULT_TOOL_HOST_OPTIONS, type ToolHostOptions } from './tools-config';

/** Arguments of connectTools. */
export interface ConnectToolsOptions {
  /** The agent's `tools.mcpServers`, connected in parallel. */
  servers: readonly McpServer[];
  /** The gateway's own tools for this run; omitted or no globs: none. */
  platform?: PlatformToolServer;
  /** The runner's tool policy and limits (toolHostOptions(config)). @defaultValue DEFAULT_TOOL_HOST_OPTIONS */
  options?: Partial<ToolHostOptions>;
  /** Reads a workspace secret named by a `{secret}` header value. Omitted: such servers are refused. */
  resolveSecret?: (name: string) => Promise<string>;
  log: Logger;
  /** The run's signal: servers still connecting give up (`connect_cancelled`) when it aborts. */
  signal?: AbortSignal;
}

/** Longest tool description kept: descriptions are untrusted and go into every model request. */
const MAX_DESCRIPTION_BYTES = 2_048;
/** Largest input schema kept, serialized. */
const MAX_INPUT_SCHEMA_BYTES = 32 * 1024;

/**
 * Connects every MCP server of a run and returns the tool host with what
 * went wrong. A server that is refused (allow-list, address check, secret)
 * or fails to connect in time becomes a notice and the others still serve;
 * this never throws for one bad server.
 */
export async function connectTools(input: ConnectToolsOptions): Promise<{ host: ToolHost; notices: ToolServerNotice[] }> {
  const options: ToolHostOptions = { ...DEFAULT_TOOL_HOST_OPTIONS, ...input.options };
  const context: ConnectContext = { options, resolveSecret: input.resolveSecret, log: input.log, signal: input.signal ?? new AbortController().signal };
  const attempts = input.servers.map((spec) => guard(spec.name, connectAgentServer(spec, context)));
  if (input.platform && input.platform.toolGlobs.length > 0) attempts.push(guard('platform', connectPlatformServer(input.platform, context)));
  const outcomes = await Promise.all(attempts);
  const connections = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.connection] : []));
  const notices = outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome.notice]));
  for (const notice of notices) input.log.warn({ server: notice.server, code: notice.error.code }, 'mcp server not connected');
  const host = new McpToolHost(connections, options, input.log, input.platform?.toolGlobs ?? []);
  notices.push(...host.skipped);
  return { host, notices };
}

/** Connecting never throws by design; this keeps it so if a bug makes it throw. */
function guard(server: string, attempt: Promise<ConnectOutcome>): Promise<ConnectOutcome> {
  return attempt.catch((error: unknown) => ({ ok: false, notice: { server, error: { code: 'connect_failed', message: describeError(error) } } }));
}

interface HostedTool {
  definition: ToolDefinition;
  connection: McpConnection;
  /** The tool's name on its server. */
  remoteName: string;
}

/** The ToolHost over MCP connections. */
class McpToolHost implements ToolHost {
  /** Tools left out per server (over the limit, unusable name or schema), as notices. */
  readonly skipped: ToolServerNotice[] = [];
  private readonly byName = new Map<string, HostedTool>();
  private closing: Promise<void> | undefined;

  constructor(
    private readonly connections: readonly McpConnection[],
    private readonly options: ToolHostOptions,
    private readonly log: Logger,
    platformGlobs: readonly string[],
  ) {
    const modelNames = new Set<string>();
    for (const connection of connections) {
      let unusable = 0;
      for (const tool of connection.tools) {
        const name = qualifyToolName(connection.server, tool.name);
        if (connection.trusted && !platformGlobs.some((glob) => matchesToolGlob(glob, tool.name) || matchesToolGlob(glob, name))) continue;
        const modelName = toModelToolName(name);
        const schemaBytes = Buffer.byteLength(JSON.stringify(tool.inputSchema), 'utf8');
        if (this.byName.has(name) || modelNames.has(modelName) || schemaBytes > MAX_INPUT_SCHEMA_BYTES) {
          unusable += 1;
          continue;
        }
        modelNames.add(modelName);
        const readOnly = tool.annotations?.readOnlyHint === true;
        const definition: ToolDefinition = {
          name,
          modelName,
          description: capText(tool.description ?? '', MAX_DESCRIPTION_BYTES),
          inputSchema: tool.inputSchema,
          server: connection.server,
          readOnly,
          // MCP's default: a tool may be destructive unless it says otherwise. Taken as said, not
          // implied by readOnlyHint: an external server's read-only claim never loosens policy.
          destructive: tool.annotations?.destructiveHint !== false,
          trusted: connection.trusted,
        };
        this.byName.set(name, { definition, connection, remoteName: tool.name });
      }
      const parts = [
        connection.toolsLeftOut > 0 ? `${connection.toolsLeftOut} over the limit of ${options.maxToolsPerServer}` : '',
        unusable > 0 ? `${unusable} with a duplicate name or an input schema over ${MAX_INPUT_SCHEMA_BYTES} bytes` : '',
      ].filter((part) => part !== '');
      if (parts.length > 0) this.skipped.push({ server: connection.server, error: { code: 'tools_skipped', message: `tools left out: ${parts.join('; ')}` } });
    }
  }

  tools(): ToolDefinition[] {
    return [...this.byName.values()].map((tool) => tool.definition);
  }

  async call(name: string, args: unknown, signal: AbortSignal): Promise<ToolCallResult> {
    const started = performance.now();
    const hosted = this.byName.get(name);
    const outcome = !hosted
      ? { ok: false as const, error: { code: TOOL_ERROR_CODES.unknown, message: `no tool named ${name.slice(0, 200)} in this run` } }
      : !isJsonObject(args ?? {})
        ? { ok: false as const, error: { code: TOOL_ERROR_CODES.argumentsInvalid, message: 'the arguments must be a JSON object' } }
        : await callMcpTool(hosted.connection, hosted.remoteName, (args ?? {}) as Record<string, unknown>, signal, this.options);
    const durationMs = Math.round(performance.now() - started);
    this.log.debug({ tool: hosted?.definition.name, ok: outcome.ok, code: outcome.ok ? undefined : outcome.error.code, durationMs }, 'tool called');
    return { ...outcome, durationMs };
  }

  close(): Promise<void> {
    this.closing ??= Promise.allSettled(this.connections.map((connection) => connection.close())).then(() => undefined);
    return this.closing;
  }
}

function isJsonObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
