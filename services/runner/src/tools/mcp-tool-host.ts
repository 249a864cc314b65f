import { type McpServer, TOOL_ERROR_CODES } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { agentEndpoint, platformEndpoint, type ConnectContext, type ConnectOutcome, type EndpointOutcome, type ListOutcome, type ServerEndpoint, type ToolListing } from './mcp-connection';
import { callMcpTool, type CallOutcome } from './mcp-tool-call';
import { defaultMcpHttpPool, type McpHttpPool } from './mcp-http-pool';
import { untilAborted } from './deadline';
import { ToolListCache } from './tool-list-cache';
import { describeError } from './tool-errors';
import type { PlatformToolServer, ToolCallResult, ToolDefinition, ToolHost, ToolServerNotice } from './tool-host';
import { matchesToolGlob, PLATFORM_SERVER, qualifyToolName, toModelToolName } from './tool-names';
import { capText } from './tool-result';
import { DEFAULT_TOOL_HOST_OPTIONS, type ToolHostOptions } from './tools-config';

/** Arguments of connectTools. */
export interface ConnectToolsOptions {
  /** The agent's `tools.mcpServers`: listed at once (from the cache), connected at their first call. */
  servers: readonly McpServer[];
  /** The run's workspace: listings are cached per workspace. */
  workspaceId: string;
  /** The runner's listing cache; omitted: one for this call alone (every server is listed). */
  listings?: ToolListCache;
  /** The gateway's own tools for this run; omitted or no globs: none. */
  platform?: PlatformToolServer;
  /** The runner's tool policy and limits (toolHostOptions(config)). @defaultValue DEFAULT_TOOL_HOST_OPTIONS */
  options?: Partial<ToolHostOptions>;
  /** Reads a workspace secret named by a `{secret}` header value. Omitted: such servers are refused. */
  resolveSecret?: (name: string) => Promise<string>;
  log: Logger;
  /** The run's signal: listing and connecting give up (`connect_cancelled`) when it aborts. */
  signal?: AbortSignal;
  /** The process's sockets to HTTP servers, bounded per host. @defaultValue defaultMcpHttpPool() */
  pool?: McpHttpPool;
}

/** Longest tool description kept: descriptions are untrusted and go into every model request. */
const MAX_DESCRIPTION_BYTES = 2_048;
/** Largest input schema kept, serialized. */
const MAX_INPUT_SCHEMA_BYTES = 32 * 1024;

/**
 * The tool host of a run: every server's tools from its listing (the
 * runner's cache, or the server asked on a miss), and no session yet — a
 * server is connected at the run's first call of it, so a run that parks
 * before calling connects nothing. A server that is refused (allow-list,
 * reserved name, secret) or cannot be listed becomes a notice and the others
 * still serve; this never throws for one bad server.
 */
export async function connectTools(input: ConnectToolsOptions): Promise<{ host: ToolHost; notices: ToolServerNotice[] }> {
  const options: ToolHostOptions = { ...DEFAULT_TOOL_HOST_OPTIONS, ...input.options };
  const context: ConnectContext = { options, resolveSecret: input.resolveSecret, log: input.log, workspaceId: input.workspaceId, pool: input.pool ?? defaultMcpHttpPool() };
  const signal = input.signal ?? new AbortController().signal;
  const listings = input.listings ?? new ToolListCache({ ttlMs: 0 });
  const endpoints: Array<[string, Promise<EndpointOutcome>]> = input.servers.map((spec) => [spec.name, agentEndpoint(spec, context)]);
  if (input.platform && input.platform.toolGlobs.length > 0) endpoints.push([PLATFORM_SERVER, Promise.resolve({ ok: true, endpoint: platformEndpoint(input.platform, context) })]);
  const outcomes = await Promise.all(endpoints.map(([server, pending]) => guard(server, pending.then((outcome) => (outcome.ok ? listed(outcome.endpoint, listings, signal) : outcome)))));
  const served = outcomes.flatMap((outcome) => (outcome.ok ? [outcome] : []));
  const notices = outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome.notice]));
  for (const notice of notices) input.log.warn({ server: notice.server, code: notice.error.code }, 'mcp server not listed');
  const host = new McpToolHost(served, options, input.log, input.platform?.toolGlobs ?? [], signal);
  notices.push(...host.skipped);
  return { host, notices };
}

type Listed = { ok: true; endpoint: ServerEndpoint; listing: ToolListing };

async function listed(endpoint: ServerEndpoint, listings: ToolListCache, signal: AbortSignal): Promise<Listed | Extract<ListOutcome, { ok: false }>> {
  const outcome = await listings.listing(endpoint, signal);
  return outcome.ok ? { ok: true, endpoint, listing: outcome.listing } : outcome;
}

/** Listing never throws by design; this keeps it so if a bug makes it throw. */
function guard<T>(server: string, attempt: Promise<T | { ok: false; notice: ToolServerNotice }>): Promise<T | { ok: false; notice: ToolServerNotice }> {
  return attempt.catch((error: unknown) => ({ ok: false as const, notice: { server, error: { code: 'connect_failed', message: describeError(error) } } }));
}

interface HostedTool {
  definition: ToolDefinition;
  endpoint: ServerEndpoint;
  /** The tool as its server listed it (its name there, its output schema). */
  listed: Tool;
}

/** The ToolHost over MCP servers, each connected at its first call (one session per server and run). */
class McpToolHost implements ToolHost {
  /** Tools left out per server (over the limit, unusable name or schema), as notices. */
  readonly skipped: ToolServerNotice[] = [];
  private readonly byName = new Map<string, HostedTool>();
  private readonly sessions = new Map<string, Promise<ConnectOutcome>>();
  /** Aborts connects still under way when the host closes or the run stops. */
  private readonly closed = new AbortController();
  private closing: Promise<void> | undefined;

  constructor(
    served: readonly Listed[],
    private readonly options: ToolHostOptions,
    private readonly log: Logger,
    platformGlobs: readonly string[],
    private readonly runSignal: AbortSignal,
  ) {
    const modelNames = new Set<string>();
    for (const { endpoint: connection, listing } of served) {
      let unusable = 0;
      for (const tool of listing.tools) {
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
        this.byName.set(name, { definition, endpoint: connection, listed: tool });
      }
      const parts = [
        listing.leftOut > 0 ? `${listing.leftOut} over the limit of ${options.maxToolsPerServer}` : '',
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
        : await this.callOn(hosted, (args ?? {}) as Record<string, unknown>, signal);
    const durationMs = Math.round(performance.now() - started);
    this.log.debug({ tool: hosted?.definition.name, ok: outcome.ok, code: outcome.ok ? undefined : outcome.error.code, durationMs }, 'tool called');
    return { ...outcome, durationMs };
  }

  prepare(names: readonly string[]): void {
    // A connect that fails is kept as the session's outcome: the call that follows reports it.
    for (const name of names) {
      const hosted = this.byName.get(name);
      if (hosted) void this.session(hosted.endpoint);
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed.abort(new Error('the run closed its tools'));
      const outcomes = await Promise.all(this.sessions.values());
      await Promise.allSettled(outcomes.map((outcome) => (outcome.ok ? outcome.connection.close() : undefined)));
    })();
    return this.closing;
  }

  /** Calls the tool on its server's session, opened now if this is the run's first call of that server. */
  private async callOn(hosted: HostedTool, args: Record<string, unknown>, signal: AbortSignal): Promise<CallOutcome> {
    if (signal.aborted) return { ok: false, error: { code: TOOL_ERROR_CODES.cancelled, message: 'the run stopped before the call' } };
    const session = await untilAborted(this.session(hosted.endpoint), signal).catch(() => undefined);
    if (!session) return { ok: false, error: { code: TOOL_ERROR_CODES.cancelled, message: 'the run stopped while the server was connecting' } };
    // A server that could not be connected stays so for the run (as one whose transport closed).
    if (!session.ok) return { ok: false, error: { code: TOOL_ERROR_CODES.unavailable, message: `the server ${hosted.endpoint.server} could not be connected (${session.notice.error.code}): ${session.notice.error.message}` } };
    return callMcpTool(session.connection, hosted.listed, args, signal, this.options);
  }

  /** The run's one session with a server: parallel first calls share its connect. */
  private session(endpoint: ServerEndpoint): Promise<ConnectOutcome> {
    let session = this.sessions.get(endpoint.server);
    if (!session) {
      session = this.closing
        ? Promise.resolve({ ok: false, notice: { server: endpoint.server, error: { code: 'connect_cancelled', message: 'the run closed its tools' } } })
        : this.connect(endpoint);
      this.sessions.set(endpoint.server, session);
    }
    return session;
  }

  private async connect(endpoint: ServerEndpoint): Promise<ConnectOutcome> {
    // One signal for the connect: the run's or the host's close, whichever comes first.
    const onRunAbort = () => this.closed.abort(this.runSignal.reason);
    if (this.runSignal.aborted) onRunAbort();
    else this.runSignal.addEventListener('abort', onRunAbort, { once: true });
    try {
      const outcome = await endpoint.connect(this.closed.signal);
      if (!outcome.ok) this.log.warn({ server: endpoint.server, code: outcome.notice.error.code }, 'mcp server not connected');
      return outcome;
    } finally {
      this.runSignal.removeEventListener('abort', onRunAbort);
    }
  }
}

function isJsonObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
