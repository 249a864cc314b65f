import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@switchyard/contracts';
import { OutboundUrlError, resolveOutboundUrl } from '@switchyard/core';
import type { Logger } from '@switchyard/logging';
import { createPinnedFetch } from './pinned-fetch';
import { deadline, untilAborted } from './deadline';
import { describeError } from './tool-errors';
import type { PlatformToolServer, ToolServerNotice } from './tool-host';
import { PLATFORM_SERVER } from './tool-names';
import type { ToolHostOptions } from './tools-config';

/** A connected MCP server of one run. */
export interface McpConnection {
  server: string;
  /** The platform's own server. */
  trusted: boolean;
  client: Client;
  /** Its tools as listed (at most maxToolsPerServer). */
  tools: Tool[];
  /** Tools the server listed beyond maxToolsPerServer. */
  toolsLeftOut: number;
  /** False once the transport closed (the process exited, the session ended). */
  isOpen(): boolean;
  /** Values scrubbed from every message about this server. */
  secrets: readonly string[];
  /** Ends the session and the transport (a stdio child is stopped). Idempotent. */
  close(): Promise<void>;
}

/** What connecting one server gave. */
export type ConnectOutcome = { ok: true; connection: McpConnection } | { ok: false; notice: ToolServerNotice };

/** What connecting needs besides the server. */
export interface ConnectContext {
  options: ToolHostOptions;
  resolveSecret?: (name: string) => Promise<string>;
  log: Logger;
  /** The run's signal: connecting stops when it aborts. */
  signal: AbortSignal;
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
  /** Frees what the transport does not own (the pinned sockets). */
  release?: () => void;
}

const CLIENT_INFO = { name: 'switchyard-runner', version: '0.1.0' };
/** Pages of tools/list read at most (a server paging forever must not hold the run). */
const MAX_TOOL_PAGES = 20;

/** Connects one MCP server declared on the agent, within the connect timeout. Never throws. */
export function connectAgentServer(spec: McpServer, context: ConnectContext): Promise<ConnectOutcome> {
  return open(spec.name, false, context, async (secrets) => {
    if (spec.name === PLATFORM_SERVER) throw new ConnectRefusal('server_not_allowed', `the server name ${PLATFORM_SERVER} is reserved for the platform's tools`);
    return spec.transport === 'stdio' ? stdioTransport(spec, context) : httpTransport(spec, context, secrets);
  });
}

/** Connects the gateway's `/mcp` with the run's agent token. Trusted: no address check. Never throws. */
export function connectPlatformServer(platform: PlatformToolServer, context: ConnectContext): Promise<ConnectOutcome> {
  return open(PLATFORM_SERVER, true, context, (secrets) => {
    secrets.push(platform.token);
    const transport = new StreamableHTTPClientTransport(new URL(platform.url), { requestInit: { headers: { authorization: `Bearer ${platform.token}` } } });
    return Promise.resolve({ transport });
  });
}

async function open(server: string, trusted: boolean, context: ConnectContext, prepare: (secrets: string[]) => Promise<OpenedTransport>): Promise<ConnectOutcome> {
  const { options, log } = context;
  const bound = deadline(context.signal, options.connectTimeoutMs);
  const secrets: string[] = [];
  const client = new Client(CLIENT_INFO);
  let opened: OpenedTransport | undefined;
  let connected = true;
  client.onclose = () => (connected = false);
  client.onerror = (error) => log.debug({ server, err: describeError(error, secrets) }, 'mcp transport error');
  try {
    opened = await untilAborted(prepare(secrets), bound.signal);
    const requestOptions = { signal: bound.signal, timeout: options.connectTimeoutMs };
    await untilAborted(client.connect(opened.transport, requestOptions), bound.signal);
    const listed = client.getServerCapabilities()?.tools ? await untilAborted(listTools(client, requestOptions, options.maxToolsPerServer), bound.signal) : { tools: [], leftOut: 0 };
    const transport = opened;
    let closing: Promise<void> | undefined;
    const connection: McpConnection = {
      server,
      trusted,
      client,
      tools: listed.tools,
      toolsLeftOut: listed.leftOut,
      isOpen: () => connected,
      secrets,
      close: () => (closing ??= shutDown(client, transport, connected)),
    };
    return { ok: true, connection };
  } catch (error) {
    await shutDown(client, opened, false);
    const code = error instanceof ConnectRefusal ? error.code : bound.timedOut() ? 'connect_timeout' : context.signal.aborted ? 'connect_cancelled' : 'connect_failed';
    const message = code === 'connect_timeout' ? `no answer within ${options.connectTimeoutMs} ms` : describeError(error, secrets);
    return { ok: false, notice: { server, error: { code, message } } };
  } finally {
    bound.dispose();
  }
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
  opened?.release?.();
}

function stdioTransport(spec: Extract<McpServer, { transport: 'stdio' }>, context: ConnectContext): OpenedTransport {
  if (!context.options.stdioCommands.includes(spec.command)) {
    throw new ConnectRefusal('server_not_allowed', `the command ${spec.command} is not on this runner's stdio allow-list (RUNNER_MCP_STDIO_COMMANDS)`);
  }
  // The child gets the SDK's minimal environment (PATH, HOME, …), never the runner's own secrets.
  const transport = new StdioClientTransport({ command: spec.command, args: spec.args, env: getDefaultEnvironment(), stderr: 'pipe' });
  // Read stderr so a chatty server never blocks on a full pipe.
  transport.stderr?.on('data', (chunk: Buffer) => context.log.debug({ server: spec.name, stderr: chunk.toString('utf8').slice(0, 2_000) }, 'mcp server stderr'));
  return { transport };
}

async function httpTransport(spec: Extract<McpServer, { transport: 'http' }>, context: ConnectContext, secrets: string[]): Promise<OpenedTransport> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(spec.headers ?? {})) {
    headers[name] = typeof value === 'string' ? value : await readSecret(value.secret, name, context, secrets);
  }
  let resolved;
  try {
    resolved = await resolveOutboundUrl(spec.url, { allowPrivate: context.options.allowPrivate, allowedHosts: context.options.allowedHosts });
  } catch (error) {
    if (error instanceof OutboundUrlError) throw new ConnectRefusal(error.code, error.message);
    throw error;
  }
  const pinned = createPinnedFetch(resolved);
  const transport = new StreamableHTTPClientTransport(resolved.url, { requestInit: { headers }, fetch: pinned.fetch });
  return { transport, release: pinned.close };
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
