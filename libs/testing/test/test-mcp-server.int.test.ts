import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readTestMcpLog, startTestMcpServer, TEST_MCP_INJECTION, testMcpStdioCommand, type TestMcpHttpServer } from '@switchyard/testing';

/**
 * The test MCP server is itself a real MCP server: the SDK's own client
 * talks to it over HTTP and stdio, sessions are separate per client, it
 * records calls, and its failure tools fail the way tests rely on.
 */
jest.setTimeout(60_000);

const client = () => new Client({ name: 'test', version: '1.0.0' });
const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ type: string; text?: string }>)[0]?.text;

describe('test MCP server over HTTP', () => {
  let server: TestMcpHttpServer;
  afterEach(async () => server?.close());

  it('serves its tools with their annotations and records calls', async () => {
    server = await startTestMcpServer();
    const mcp = client();
    await mcp.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['add', 'delete_everything', 'echo', 'fail', 'huge', 'inject', 'malformed', 'mixed', 'slow', 'slow_write']);
    expect(tools.find((tool) => tool.name === 'delete_everything')?.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(tools.find((tool) => tool.name === 'slow_write')?.annotations).toMatchObject({ destructiveHint: false, readOnlyHint: false });
    expect(tools.find((tool) => tool.name === 'echo')?.annotations).toMatchObject({ readOnlyHint: true });
    expect(textOf(await mcp.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('hi');
    expect(textOf(await mcp.callTool({ name: 'inject', arguments: {} }))).toBe(TEST_MCP_INJECTION);
    expect(await mcp.callTool({ name: 'fail', arguments: { message: 'boom' } })).toMatchObject({ isError: true, content: [{ type: 'text', text: 'boom' }] });
    await expect(mcp.callTool({ name: 'malformed', arguments: {} })).rejects.toThrow(/expected array/);
    expect(server.calls.map((call) => [call.name, call.arguments])).toEqual([
      ['echo', { text: 'hi' }],
      ['inject', {}],
      ['fail', { message: 'boom' }],
      ['malformed', {}],
    ]);
    expect(Date.parse(server.calls[0]!.at)).not.toBeNaN();
    await mcp.close();
  });

  it('gives every client its own session and server', async () => {
    server = await startTestMcpServer();
    const [a, b] = [client(), client()];
    const [ta, tb] = [new StreamableHTTPClientTransport(new URL(server.url)), new StreamableHTTPClientTransport(new URL(server.url))];
    await a.connect(ta);
    await b.connect(tb);
    expect(ta.sessionId).toBeDefined();
    expect(ta.sessionId).not.toBe(tb.sessionId);
    expect(server.openSessions()).toBe(2);
    // A malformed answer is rewritten in a's session only.
    await expect(a.callTool({ name: 'malformed', arguments: {} })).rejects.toThrow();
    expect(textOf(await b.callTool({ name: 'echo', arguments: { text: 'b' } }))).toBe('b');
    await ta.terminateSession();
    expect(server.openSessions()).toBe(1);
    await a.close();
    await b.close();
  });

  it('requires the bearer token when given one', async () => {
    server = await startTestMcpServer({ bearerToken: 's3cret' });
    await expect(client().connect(new StreamableHTTPClientTransport(new URL(server.url)))).rejects.toThrow();
    expect(server.unauthorized()).toBeGreaterThan(0);
    const mcp = client();
    await mcp.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: 'Bearer s3cret' } } }));
    expect(textOf(await mcp.callTool({ name: 'add', arguments: { a: 1, b: 2 } }))).toBe('3');
    await mcp.close();
  });

  it('refuses a foreign Host header (DNS-rebinding protection)', async () => {
    server = await startTestMcpServer();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    // fetch drops a Host header it is given; node:http sends it.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(server.url, { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(403);
    expect(server.openSessions()).toBe(0);
  });

  it('refuses connections once closed', async () => {
    server = await startTestMcpServer();
    await server.close();
    await expect(fetch(server.url, { method: 'POST' })).rejects.toThrow();
  });
});

describe('test MCP server over stdio', () => {
  it('serves the same tools, logs start and calls to its file, and exits when stdin closes', async () => {
    const logFile = path.join(tmpdir(), `test-mcp-${randomUUID()}.jsonl`);
    const { command, args } = testMcpStdioCommand(logFile);
    const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
    const mcp = client();
    await mcp.connect(transport);
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'slow', 'crash', 'delete_everything']));
    expect(textOf(await mcp.callTool({ name: 'echo', arguments: { text: 'piped' } }))).toBe('piped');
    await expect(mcp.callTool({ name: 'malformed', arguments: {} })).rejects.toThrow(/expected array/);
    const pid = transport.pid!;
    const logged = readTestMcpLog(logFile);
    expect(logged.started).toEqual([pid]);
    expect(logged.calls.map((call) => [call.name, call.arguments])).toEqual([
      ['echo', { text: 'piped' }],
      ['malformed', {}],
    ]);
    const began = Date.now();
    await mcp.close();
    // It exits on stdin's end, well before the SDK's 2 s wait for SIGTERM.
    expect(Date.now() - began).toBeLessThan(1_500);
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
