import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { readJson, reply } from './test-mcp-server';

/*
 * Why this exists: the first-party templates (decision 0049) call a scorecard
 * service and a code host over MCP, and their end-to-end tests (and a demo)
 * need real MCP servers for both, recording what they were asked. This one
 * HTTP server offers both: `/scorecard/mcp` and `/code/mcp`, each behind its
 * own bearer token, as the templates' specs expect.
 */

/** The two stand-ins: the scorecard service and the code host. */
export type StandInName = 'scorecard' | 'code';

/** One tool call a stand-in received. */
export interface StandInCall {
  server: StandInName;
  tool: string;
  arguments: Record<string, unknown>;
}

/** A pull request the code host stand-in opened. */
export interface StandInPullRequest {
  number: number;
  branch: string;
  title: string;
  url: string;
}

export interface StandInMcpServer {
  /** The MCP endpoint of each stand-in (`http://127.0.0.1:<port>/<name>/mcp`). */
  urls: Record<StandInName, string>;
  /** The bearer token each stand-in requires. */
  tokens: Record<StandInName, string>;
  calls: StandInCall[];
  pullRequests: StandInPullRequest[];
  /** Requests refused for a wrong or missing token. */
  unauthorized(): number;
  close(): Promise<void>;
}

const json = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
const READ = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };
const WRITE = { readOnlyHint: false, destructiveHint: false, openWorldHint: true };

function scorecardTools(server: McpServer, record: (tool: string, args: Record<string, unknown>) => void): void {
  server.registerTool('get_batch', { description: "A batch's queue position and runner health.", inputSchema: { scorecardId: z.string() }, annotations: READ }, (args) => {
    record('get_batch', args);
    return json({ scorecardId: args.scorecardId, queuePosition: 0, runnersHealthy: 4, runnersTotal: 4 });
  });
  server.registerTool('get_failed_cases', { description: 'The failed cases of a scorecard with their traces.', inputSchema: { scorecardId: z.string() }, annotations: READ }, (args) => {
    record('get_failed_cases', args);
    return json({ scorecardId: args.scorecardId, cases: [{ caseId: 'case-03', failureClass: 'assertion', trace: 'expected 200, got 500 from harness/spec.yaml:12' }] });
  });
  server.registerTool('retry_case', { description: 'Runs one case of a batch again.', inputSchema: { scorecardId: z.string(), caseId: z.string() }, annotations: WRITE }, (args) => {
    record('retry_case', args);
    return json({ scorecardId: args.scorecardId, caseId: args.caseId, retried: true });
  });
}

function codeTools(server: McpServer, record: (tool: string, args: Record<string, unknown>) => void, open: (args: { branch: string; title: string }) => StandInPullRequest): void {
  server.registerTool('get_file', { description: 'A file of the linked repository.', inputSchema: { path: z.string() }, annotations: READ }, (args) => {
    record('get_file', args);
    return json({ path: args.path, content: 'cases:\n  - id: case-03\n    expect: 200\n' });
  });
  server.registerTool(
    'open_pull_request',
    { description: 'Opens a pull request from a branch.', inputSchema: { branch: z.string(), title: z.string(), body: z.string().optional() }, annotations: WRITE },
    (args) => {
      record('open_pull_request', args);
      return json(open(args));
    },
  );
}

/** Starts both stand-ins on one port of 127.0.0.1, one MCP session per client, DNS-rebinding protection on. */
export async function startStandInMcpServer(): Promise<StandInMcpServer> {
  const calls: StandInCall[] = [];
  const pullRequests: StandInPullRequest[] = [];
  const tokens: Record<StandInName, string> = { scorecard: `sc-${randomUUID()}`, code: `code-${randomUUID()}` };
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer }>();
  let refused = 0;
  let port = 0;

  const newServer = (name: StandInName): McpServer => {
    const server = new McpServer({ name: `switchyard-stand-in-${name}`, version: '1.0.0' });
    const record = (tool: string, args: Record<string, unknown>) => calls.push({ server: name, tool, arguments: args });
    if (name === 'scorecard') scorecardTools(server, record);
    else
      codeTools(server, record, ({ branch, title }) => {
        const pr = { number: pullRequests.length + 1, branch, title, url: `http://127.0.0.1:${port}/pulls/${pullRequests.length + 1}` };
        pullRequests.push(pr);
        return pr;
      });
    return server;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const name = /^\/(scorecard|code)\/mcp$/.exec(new URL(req.url ?? '/', 'http://localhost').pathname)?.[1] as StandInName | undefined;
    if (!name) return reply(res, 404, 'not found');
    if (req.headers.authorization !== `Bearer ${tokens[name]}`) {
      refused += 1;
      return reply(res, 401, 'unauthorized');
    }
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session) return reply(res, 404, 'unknown session');
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) return reply(res, 400, 'a request without a session must be an initialize request');
    const server = newServer(name);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableDnsRebindingProtection: true,
      allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`],
      onsessioninitialized: (id) => void sessions.set(id, { transport, server }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => reply(res, 500, String(error)));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  port = (http.address() as AddressInfo).port;
  return {
    urls: { scorecard: `http://127.0.0.1:${port}/scorecard/mcp`, code: `http://127.0.0.1:${port}/code/mcp` },
    tokens,
    calls,
    pullRequests,
    unauthorized: () => refused,
    close: async () => {
      await Promise.allSettled([...sessions.values()].flatMap(({ transport, server }) => [transport.close(), server.close()]));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** One case of a scripted batch: passed, or failed for a transient (infrastructure) or an assertion reason. */
export type ScriptedCase = 'passed' | 'transient' | 'assertion';

/**
 * The facts a scorecard service would send for a batch whose cases end as
 * `cases` says: `scorecard.submitted`, one `scorecard.case.completed` per case
 * (`payload {caseId, status, failureClass?}`), then `scorecard.completed`
 * (`payload {totalCases, failedCases}`).
 */
export function scorecardBatchFacts(scorecardId: string, cases: ScriptedCase[]): Array<{ kind: string; subject: { type: string; id: string }; payload: Record<string, unknown> }> {
  const subject = { type: 'scorecard', id: scorecardId };
  const caseId = (index: number) => `case-${String(index + 1).padStart(2, '0')}`;
  return [
    { kind: 'scorecard.submitted', subject, payload: { totalCases: cases.length } },
    ...cases.map((result, index) => ({
      kind: 'scorecard.case.completed',
      subject,
      payload: result === 'passed' ? { caseId: caseId(index), status: 'passed' } : { caseId: caseId(index), status: 'failed', failureClass: result },
    })),
    { kind: 'scorecard.completed', subject, payload: { totalCases: cases.length, failedCases: cases.filter((result) => result !== 'passed').length } },
  ];
}
