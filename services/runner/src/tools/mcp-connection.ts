import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@switchyard/contracts';
import { OutboundUrlError, resolveOutboundUrl } from '@switchyard/core';
import type { Logger } from '@switchyard/logging';
import { deadline, untilAborted, type Deadline } from './deadline';
import type { McpHttpPool } from './mcp-http-pool';
import { describeError } from './tool-errors';
import type { PlatformToolServer, ToolServerNotice } from './tool-host';
import { PLATFORM_SERVER } from './tool-names';
import type { ToolHostOptions } from './tools-config';

/** An open MCP session of one run (initialize done; its tools come from the listing, tool-list-cache.ts). */
export interface McpConnection {
  server: string;
  client: Client;
  /** False once the transport closed (the process exited, the session ended). */
  isOpen(): boolean;
  /** Values scrubbed from every message about this server. */
  secrets: readonly string[];
  /** Ends the session and the transport (a stdio child is stopped). Idempotent. */
  close(): Promise<void>;
}

/** What a server listed (at most maxToolsPerServer tools). */
export interface ToolListing {
  tools: Tool[];
  /** Tools the server listed beyond maxToolsPerServer. */
  leftOut: number;
}

/**
 * A server of one run, checked and with its secrets read, not yet
 * connected: a run opens its session at its first call (decision 0012).
 */
export interface ServerEndpoint {
  server: string;
  /** The platform's own server. */
  trusted: boolean;
  /** Everything the server's listing can depend on (the spec, the credentials' identity, the workspace), hashed. */
  listingKey: string;
  secrets: readonly string[];
  /** Opens a session: initialize and initialized, within the connect timeout. Never throws. */
  connect(signal: AbortSignal): Promise<ConnectOutcome>;
  /** Opens a session, reads tools/list and ends the session. Never throws. */
  list(signal: AbortSignal): Promise<ListOutcome>;
}

/** What connecting one server gave. */
export type ConnectOutcome = { ok: true; connection: McpConnection } | { ok: false; notice: ToolServerNotice };
/** What listing one server gave. */
export type ListOutcome = { ok: true; listing: ToolListing } | { ok: false; notice: ToolServerNotice };
/** An endpoint, or why the server is refused before any connection (allow-list, reserved name, secret). */
export type EndpointOutcome = { ok: true; endpoint: ServerEndpoint } | { ok: false; notice: ToolServerNotice };

/** What connecting needs besides the server. */
export interface ConnectContext {
  options: ToolHostOptions;
  resolveSecret?: (name: string) => Promise<string>;
  log: Logger;
  /** The run's workspace: no listing is shared across workspaces. */
  workspaceId: string;
  /** The process's sockets to HTTP servers, bounded per host. */
  pool: McpHttpPool;
}

/** A server refused before any connection attempt; `code` goes to the notice. */
class ConnectRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface OpenedTransport {
  transport: Transport;
}

const CLIENT_INFO = { name: 'switchyard-runner', version: '0.1.0' };
/** Pages of tools/list read at most (a server paging forever must not hold the run). */
const MAX_TOOL_PAGES = 20;

/** The endpoint of one MCP server declared on the agent: refusals checked and header secrets read. Never throws. */
export async function agentEndpoint(spec: McpServer, context: ConnectContext): Promise<EndpointOutcome> {
  try {
    if (spec.name === PLATFORM_SERVER) throw new ConnectRefusal('server_not_allowed', `the server name ${PLATFORM_SERVER} is reserved for the platform's tools`);
    if (spec.transport === 'stdio') {
      if (!context.options.stdioCommands.includes(spec.command)) {
        throw new ConnectRefusal('server_not_allowed', `the command ${spec.command} is not on this runner's stdio allow-list (RUNNER_MCP_STDIO_COMMANDS)`);
      }
      const key = listingKey(context.workspaceId, ['stdio', spec.command, spec.args]);
      return { ok: true, endpoint: endpoint(spec.name, false, key, [], context, () => Promise.resolve(stdioTransport(spec, context))) };
    }
    const secrets: string[] = [];
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(spec.headers ?? {})) {
      headers[name] = typeof value === 'string' ? value : await readSecret(value.secret, name, context, secrets);
    }
    // The resolved values are part of the key: a listing is never served to other credentials.
    const sorted = Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]).sort();
    const key = listingKey(context.workspaceId, ['http', spec.url, sorted]);
    return { ok: true, endpoint: endpoint(spec.name, false, key, secrets, context, () => httpTransport(spec.url, headers, context)) };
  } catch (error) {
    const code = error instanceof ConnectRefusal ? error.code : 'connect_failed';
    return { ok: false, notice: { server: spec.name, error: { code, message: describeError(error) } } };
  }
}

/**
 * The endpoint of the gateway's `/mcp` with the run's agent token. Trusted:
 * no address check. Its listing depends on whom the token acts as, not on
 * the token (one per run): the key names that principal.
 */
export function platformEndpoint(platform: PlatformToolServer, context: ConnectContext): ServerEndpoint {
  const key = listingKey(context.workspaceId, ['platform', platform.url, platform.principal]);
  const open = () => Promise.resolve({ transport: new StreamableHTTPClientTransport(new URL(platform.url), { requestInit: { headers: { authorization: `Bearer ${platform.token}` } }, fetch: context.pool.trustedFetch() }) });
  return endpoint(PLATFORM_SERVER, true, key, [platform.token], context, open);
}

function listingKey(workspaceId: string, parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify([workspaceId, ...parts])).digest('hex');
}

function endpoint(server: string, trusted: boolean, key: string, secrets: readonly string[], context: ConnectContext, prepare: () => Promise<OpenedTransport>): ServerEndpoint {
  const session = (signal: AbortSignal) => open(server, secrets, context, signal, prepare);
  return {
    server,
    trusted,
    listingKey: key,
    secrets,
    connect: async (signal) => {
      const opened = await session(signal);
      if (!opened.ok) return opened;
      opened.bound.dispose();
      return { ok: true, connection: opened.connection };
    },
    list: async (signal) => {
      const opened = await session(signal);
      if (!opened.ok) return opened;
      const { connection, bound } = opened;
      try {
        const requestOptions = { signal: bound.signal, timeout: context.options.connectTimeoutMs };
        const listing = connection.client.getServerCapabilities()?.tools
          ? await untilAborted(listTools(connection.client, requestOptions, context.options.maxToolsPerServer), bound.signal)
          : { tools: [], leftOut: 0 };
        return { ok: true, listing };
      } catch (error) {
        return { ok: false, notice: failureNotice(server, error, bound, signal, context.options, secrets) };
      } finally {
        bound.dispose();
        await connection.close();
      }
    },
  };
}

type Opened = { ok: true; connection: McpConnection; bound: Deadline } | { ok: false; notice: ToolServerNotice };

/** Opens a session within the connect timeout; the deadline goes on (for tools/list) and is the caller's to dispose. */
async function open(server: string, secrets: readonly string[], context: ConnectContext, signal: AbortSignal, prepare: () => Promise<OpenedTransport>): Promise<Opened> {
  const { options, log } = context;
  const bound = deadline(signal, options.connectTimeoutMs);
  const client = new Client(CLIENT_INFO);
  let opened: OpenedTransport | undefined;
  let connected = true;
  client.onclose = () => (connected = false);
  client.onerror = (error) => log.debug({ server, err: describeError(error, secrets) }, 'mcp transport error');
  try {
    opened = await untilAborted(prepare(), bound.signal);
    await untilAborted(client.connect(opened.transport, { signal: bound.signal, timeout: options.connectTimeoutMs }), bound.signal);
    const transport = opened;
    let closing: Promise<void> | undefined;
    const connection: McpConnection = {
      server,
      client,
      isOpen: () => connected,
      secrets,
      close: () => (closing ??= shutDown(client, transport, connected)),
    };
    return { ok: true, connection, bound };
  } catch (error) {
    await shutDown(client, opened, false);
    bound.dispose();
    return { ok: false, notice: failureNotice(server, error, bound, signal, options, secrets) };
  }
}

function failureNotice(server: string, error: unknown, bound: Deadline, signal: AbortSignal, options: ToolHostOptions, secrets: readonly string[]): ToolServerNotice {
  const code = error instanceof ConnectRefusal ? error.code : bound.timedOut() ? 'connect_timeout' : signal.aborted ? 'connect_cancelled' : 'connect_failed';
  const message = code === 'connect_timeout' ? `no answer within ${options.connectTimeoutMs} ms` : describeError(error, secrets);
  return { server, error: { code, message } };
}

async function listTools(client: Client, requestOptions: { signal: AbortSignal; timeout: number }, max: number): Promise<{ tools: Tool[]; leftOut: number }> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, requestOptions);
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined || tools.length > max) break;
  }
  return { tools: tools.slice(0, max), leftOut: Math.max(0, tools.length - max) };
}

/** Ends an HTTP session politely (bounded), then closes the client and its transport; never throws. */
async function shutDown(client: Client, opened: OpenedTransport | undefined, endSession: boolean): Promise<void> {
  if (endSession && opened?.transport instanceof StreamableHTTPClientTransport) {
    await untilAborted(opened.transport.terminateSession(), AbortSignal.timeout(1_000)).catch(() => undefined);
  }
  await client.close().catch(() => undefined);
  // A transport that never reached the client (a refusal mid-connect) is closed here.
  await opened?.transport.close().catch(() => undefined);
}

function stdioTransport(spec: Extract<McpServer, { transport: 'stdio' }>, context: ConnectContext): OpenedTransport {
  // The child gets the SDK's minimal environment (PATH, HOME, …), never the runner's own secrets.
  const transport = new StdioClientTransport({ command: spec.command, args: spec.args, env: getDefaultEnvironment(), stderr: 'pipe' });
  // Read stderr so a chatty server never blocks on a full pipe.
  transport.stderr?.on('data', (chunk: Buffer) => context.log.debug({ server: spec.name, stderr: chunk.toString('utf8').slice(0, 2_000) }, 'mcp server stderr'));
  return { transport };
}

/** The URL is checked (and pinned) at each connect: a DNS answer that changed since the listing is checked again; the socket comes from the process's pool of that address. */
async function httpTransport(url: string, headers: Record<string, string>, context: ConnectContext): Promise<OpenedTransport> {
  let resolved;
  try {
    resolved = await resolveOutboundUrl(url, { allowPrivate: context.options.allowPrivate, allowedHosts: context.options.allowedHosts });
  } catch (error) {
    if (error instanceof OutboundUrlError) throw new ConnectRefusal(error.code, error.message);
    throw error;
  }
  const transport = new StreamableHTTPClientTransport(resolved.url, { requestInit: { headers }, fetch: context.pool.pinnedFetch(resolved) });
  return { transport };
}

async function readSecret(secret: string, header: string, context: ConnectContext, secrets: string[]): Promise<string> {
  if (!context.resolveSecret) throw new ConnectRefusal('secret_unavailable', `header ${header} needs the secret ${secret}, and this runner reads no secrets`);
  let value: string;
  try {
    value = await context.resolveSecret(secret);
  } catch {
    // The resolver's own message could hold more than a name: not repeated.
    throw new ConnectRefusal('secret_unavailable', `header ${header} needs the secret ${secret}, which could not be read`);
  }
  secrets.push(value);
  return value;
}
