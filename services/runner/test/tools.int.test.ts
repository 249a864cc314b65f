import { randomUUID } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { McpServer } from '@switchyard/contracts';
import { createLogger } from '@switchyard/logging';
import { readTestMcpLog, startTestMcpServer, TEST_MCP_INJECTION, testMcpStdioCommand, waitFor, type TestMcpHttpServer } from '@switchyard/testing';
import { connectTools, ToolListCache, type ConnectToolsOptions, type ToolHost, type ToolServerNotice } from '../src/tools';

/**
 * The runner's tool host against real MCP servers: the test server over
 * Streamable HTTP (in this process) and over stdio (a child process). Every
 * failure — refused, down, slow, crashed, malformed — must come back as a
 * notice or a `{ok: false}` result within its bound, never as a throw or a hang.
 */
jest.setTimeout(60_000);

const log = createLogger({ service: 'tools-test', level: 'silent' });
const never = new AbortController().signal;
/** Starting a stdio server means compiling it with tsx: seconds, not milliseconds. */
const STDIO_CONNECT_MS = 20_000;
const LOCAL = { allowPrivate: true, stdioCommands: [process.execPath], connectTimeoutMs: STDIO_CONNECT_MS, callTimeoutMs: 5_000 };

const logFile = () => path.join(tmpdir(), `test-mcp-${randomUUID()}.jsonl`);
const stdioServer = (name: string, file: string, flags: string[] = []): McpServer => ({ name, transport: 'stdio', ...testMcpStdioCommand(file, flags) });
const httpServer = (name: string, url: string, headers?: Extract<McpServer, { transport: 'http' }>['headers']): McpServer => ({ name, transport: 'http', url, headers });
const connect = (servers: McpServer[], extra: Partial<ConnectToolsOptions> = {}) => connectTools({ servers, workspaceId: 'w-tools', log, ...extra, options: { ...LOCAL, ...extra.options } });
const codes = (notices: ToolServerNotice[]) => notices.map((notice) => [notice.server, notice.error.code]);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A port nothing listens on: taken, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('tool host over HTTP and stdio', () => {
  let http: TestMcpHttpServer;
  let host: ToolHost;
  let notices: ToolServerNotice[];
  const stdioLog = logFile();

  beforeAll(async () => {
    http = await startTestMcpServer();
    ({ host, notices } = await connect([httpServer('web', http.url), stdioServer('local', stdioLog)], { options: { maxResultBytes: 2_048 } }));
  });
  afterAll(async () => {
    await host?.close();
    await http?.close();
  });

  it('lists every tool as <server>.<tool> with its hints', () => {
    expect(notices).toEqual([]);
    const tools = host.tools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['web.echo', 'web.delete_everything', 'local.echo', 'local.crash']));
    const echo = tools.find((tool) => tool.name === 'web.echo')!;
    expect(echo).toMatchObject({ modelName: 'web__echo', server: 'web', readOnly: true, destructive: false, trusted: false });
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
    expect(tools.find((tool) => tool.name === 'local.delete_everything')).toMatchObject({ readOnly: false, destructive: true });
  });

  it('calls tools on both servers, and each server records the calls it received', async () => {
    expect(await host.call('web.echo', { text: 'over http' }, never)).toMatchObject({ ok: true, content: 'over http' });
    expect(await host.call('local.add', { a: 2, b: 40 }, never)).toMatchObject({ ok: true, content: '42' });
    expect(http.calls.filter((call) => call.name === 'echo').map((call) => call.arguments)).toEqual([{ text: 'over http' }]);
    expect(readTestMcpLog(stdioLog).calls.map((call) => [call.name, call.arguments])).toEqual([['add', { a: 2, b: 40 }]]);
  });

  it('passes a prompt injection through as plain result text', async () => {
    expect(await host.call('web.inject', {}, never)).toMatchObject({ ok: true, content: TEST_MCP_INJECTION });
  });

  it.each(['web', 'local'])('reports a malformed result from %s as tool_result_invalid', async (server) => {
    const result = await host.call(`${server}.malformed`, {}, never);
    expect(result).toMatchObject({ ok: false, error: { code: 'tool_result_invalid' } });
    // The connection survives a bad answer.
    expect(await host.call(`${server}.echo`, { text: 'still here' }, never)).toMatchObject({ ok: true, content: 'still here' });
  });

  it('reports a tool error as tool_failed with its text', async () => {
    expect(await host.call('local.fail', { message: 'no such repo' }, never)).toMatchObject({ ok: false, error: { code: 'tool_failed', message: 'no such repo' } });
  });

  it('caps a huge result and says so', async () => {
    const result = await host.call('web.huge', { bytes: 1_000_000 }, never);
    if (!result.ok) throw new Error(result.error.message);
    expect(Buffer.byteLength(result.content)).toBeLessThanOrEqual(2_048);
    expect(result.content).toMatch(/\[truncated: \d+ of 1000000 bytes shown\]$/);
  });

  it('summarizes content that is not text', async () => {
    expect(await host.call('local.mixed', {}, never)).toMatchObject({
      ok: true,
      content: 'a picture:\n[image: image/png, 68 bytes, not shown]\n[resource link: report file:///tmp/report.txt]',
    });
  });

  it('refuses unknown tools and arguments that are not an object without calling a server', async () => {
    const before = http.calls.length;
    expect(await host.call('web.nope', {}, never)).toMatchObject({ ok: false, error: { code: 'tool_unknown' } });
    expect(await host.call('echo', {}, never)).toMatchObject({ ok: false, error: { code: 'tool_unknown' } });
    expect(await host.call('web.echo', ['text'], never)).toMatchObject({ ok: false, error: { code: 'tool_arguments_invalid' } });
    expect(await host.call('web.echo', 'text', never)).toMatchObject({ ok: false, error: { code: 'tool_arguments_invalid' } });
    expect(http.calls.length).toBe(before);
  });

  it('reports a tool the server rejects the arguments of as tool_failed', async () => {
    expect(await host.call('web.add', { a: 'one' }, never)).toMatchObject({ ok: false, error: { code: 'tool_failed' } });
  });

  it('leaves no listener on the run signal once its calls are over', async () => {
    const run = new AbortController();
    for (let i = 0; i < 20; i += 1) await host.call(i % 2 === 0 ? 'web.echo' : 'local.echo', { text: String(i) }, run.signal);
    await host.call('web.slow', { ms: 1 }, run.signal);
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
  });

  it('cancels a call when the run aborts', async () => {
    const controller = new AbortController();
    const call = host.call('local.slow', { ms: 30_000 }, controller.signal);
    // Aborted once the server has the call (it records a call as it starts).
    await waitFor(async () => readTestMcpLog(stdioLog).calls.some((c) => c.name === 'slow' && c.arguments.ms === 30_000), { timeoutMs: 10_000, intervalMs: 10, what: 'the slow call started' });
    controller.abort();
    const result = await call;
    expect(result).toMatchObject({ ok: false, error: { code: 'tool_cancelled' } });
    expect(result.durationMs).toBeLessThan(2_000);
  });
});

describe('tool host failures', () => {
  const started: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((item) => item.close()));
  });
  async function track<T extends { host: ToolHost }>(connected: Promise<T>): Promise<T> {
    const value = await connected;
    started.push(value.host);
    return value;
  }
  async function testServer(options: Parameters<typeof startTestMcpServer>[0] = {}): Promise<TestMcpHttpServer> {
    const server = await startTestMcpServer(options);
    started.push(server);
    return server;
  }

  it('times a slow tool out within its bound, and the server stays usable', async () => {
    const http = await testServer();
    const { host } = await track(connect([httpServer('web', http.url)], { options: { callTimeoutMs: 300 } }));
    const result = await host.call('web.slow', { ms: 20_000 }, never);
    expect(result).toMatchObject({ ok: false, error: { code: 'tool_timeout', message: 'no answer within 300 ms' } });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(1_500);
    expect(await host.call('web.echo', { text: 'next' }, never)).toMatchObject({ ok: true, content: 'next' });
  });

  it('reports a server that is down, and the other servers still work', async () => {
    const http = await testServer();
    const port = await closedPort();
    const began = Date.now();
    const { host, notices } = await track(connect([httpServer('down', `http://127.0.0.1:${port}/mcp`), httpServer('up', http.url)]));
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(codes(notices)).toEqual([['down', 'connect_failed']]);
    expect(host.tools().every((tool) => tool.server === 'up')).toBe(true);
    expect(await host.call('up.echo', { text: 'fine' }, never)).toMatchObject({ ok: true });
    expect(await host.call('down.echo', { text: 'x' }, never)).toMatchObject({ ok: false, error: { code: 'tool_unknown' } });
  });

  it('gives up on a server that accepts connections but never answers', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    started.push({ close: () => new Promise<void>((resolve) => (silent.closeAllConnections(), silent.close(() => resolve()))) });
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
    const began = Date.now();
    const { notices } = await track(connect([httpServer('silent', url)], { options: { connectTimeoutMs: 500 } }));
    expect(codes(notices)).toEqual([['silent', 'connect_timeout']]);
    expect(Date.now() - began).toBeLessThan(2_000);
  });

  it('reports a server that went down mid-run as tool_unavailable', async () => {
    const http = await testServer();
    const { host } = await track(connect([httpServer('web', http.url)]));
    await http.close();
    const result = await host.call('web.echo', { text: 'anyone?' }, never);
    expect(result).toMatchObject({ ok: false, error: { code: 'tool_unavailable' } });
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it('refuses a private URL unless the operator allows it', async () => {
    const http = await testServer();
    const refused = await track(connect([httpServer('web', http.url)], { options: { allowPrivate: false } }));
    expect(refused.notices).toEqual([{ server: 'web', error: { code: 'url_not_allowed', message: expect.stringContaining('loopback') } }]);
    expect(http.openSessions()).toBe(0);
    const listed = await track(connect([httpServer('web', http.url)], { options: { allowPrivate: false, allowedHosts: ['127.0.0.1'] } }));
    expect(listed.notices).toEqual([]);
    expect(await listed.host.call('web.echo', { text: 'allowed host' }, never)).toMatchObject({ ok: true });
  });

  it('sends secret headers to the server, and keeps their values out of notices', async () => {
    const http = await testServer({ bearerToken: 'tok-3f9a2c' });
    const secrets: Record<string, string> = { 'good-token': 'Bearer tok-3f9a2c', 'bad-token': 'Bearer wrong-77e1' };
    const resolveSecret = (name: string) => (name in secrets ? Promise.resolve(secrets[name]!) : Promise.reject(new Error(`no secret ${name}`)));
    const { host, notices } = await track(
      connect(
        [
          httpServer('good', http.url, { Authorization: { secret: 'good-token' } }),
          httpServer('bad', http.url, { Authorization: { secret: 'bad-token' } }),
          httpServer('missing', http.url, { Authorization: { secret: 'nope' } }),
          httpServer('literal', http.url, { Authorization: 'Bearer tok-3f9a2c' }),
        ],
        { resolveSecret },
      ),
    );
    expect(codes(notices)).toEqual([
      ['bad', 'connect_failed'],
      ['missing', 'secret_unavailable'],
    ]);
    expect(JSON.stringify(notices)).not.toContain('wrong-77e1');
    expect(http.unauthorized()).toBeGreaterThan(0);
    expect(await host.call('good.echo', { text: 'authorized' }, never)).toMatchObject({ ok: true });
    expect(await host.call('literal.echo', { text: 'authorized' }, never)).toMatchObject({ ok: true });
    const withoutResolver = await track(connect([httpServer('good', http.url, { Authorization: { secret: 'good-token' } })]));
    expect(codes(withoutResolver.notices)).toEqual([['good', 'secret_unavailable']]);
  });

  it('runs only stdio commands on the allow-list', async () => {
    const file = logFile();
    const { host, notices } = await track(connect([stdioServer('local', file)], { options: { stdioCommands: ['/usr/bin/env'] } }));
    expect(notices).toEqual([{ server: 'local', error: { code: 'server_not_allowed', message: expect.stringContaining('RUNNER_MCP_STDIO_COMMANDS') } }]);
    expect(host.tools()).toEqual([]);
    expect(readTestMcpLog(file).started).toEqual([]);
    const none = await track(connect([stdioServer('local', file)], { options: { stdioCommands: [] } }));
    expect(codes(none.notices)).toEqual([['local', 'server_not_allowed']]);
  });

  it('reports a stdio command that does not exist', async () => {
    const { notices } = await track(connect([{ name: 'ghost', transport: 'stdio', command: '/nonexistent/mcp-server', args: [] }], { options: { stdioCommands: ['/nonexistent/mcp-server'] } }));
    expect(codes(notices)).toEqual([['ghost', 'connect_failed']]);
  });

  it('stops a stdio server that never completes the handshake', async () => {
    const file = logFile();
    const { notices } = await track(connect([stdioServer('stall', file, ['--stall'])], { options: { connectTimeoutMs: 4_000 } }));
    expect(codes(notices)).toEqual([['stall', 'connect_timeout']]);
    const [pid] = readTestMcpLog(file).started;
    expect(pid).toBeDefined();
    await waitFor(async () => !alive(pid!), { timeoutMs: 10_000, what: 'the stalled child to exit' });
  });

  it('reports a crashed stdio server as tool_unavailable and keeps answering', async () => {
    const { host } = await track(connect([stdioServer('local', logFile())]));
    expect(await host.call('local.crash', {}, never)).toMatchObject({ ok: false, error: { code: 'tool_unavailable' } });
    const after = await host.call('local.echo', { text: 'x' }, never);
    expect(after).toMatchObject({ ok: false, error: { code: 'tool_unavailable' } });
    expect(after.durationMs).toBeLessThan(100);
  });

  it('close() stops the stdio child and ends the HTTP session', async () => {
    const http = await testServer();
    const file = logFile();
    const { host } = await connect([stdioServer('local', file), httpServer('web', http.url)]);
    // Listing started a child and a session of its own, both ended; the run's open at its first calls.
    expect(http.openSessions()).toBe(0);
    const [lister] = readTestMcpLog(file).started;
    await waitFor(async () => !alive(lister!), { timeoutMs: 10_000, what: 'the listing child to exit' });
    expect(await host.call('local.echo', { text: 'x' }, never)).toMatchObject({ ok: true });
    expect(await host.call('web.echo', { text: 'x' }, never)).toMatchObject({ ok: true });
    const [, pid] = readTestMcpLog(file).started;
    expect(alive(pid!)).toBe(true);
    expect(http.openSessions()).toBe(1);
    await Promise.all([host.close(), host.close()]);
    expect(alive(pid!)).toBe(false);
    expect(http.openSessions()).toBe(0);
    expect(await host.call('local.echo', { text: 'x' }, never)).toMatchObject({ ok: false, error: { code: 'tool_unavailable' } });
  });

  it('exposes only the platform tools its globs allow, as trusted platform.<tool>', async () => {
    const gateway = await testServer({ bearerToken: 'agent-token-1' });
    const { host, notices } = await track(
      connect([httpServer('platform', gateway.url)], { platform: { url: gateway.url, token: 'agent-token-1', toolGlobs: ['echo', 'platform.add', 'del*'], principal: 'agent:a1' } }),
    );
    expect(codes(notices)).toEqual([['platform', 'server_not_allowed']]);
    expect(host.tools().map((tool) => [tool.name, tool.modelName, tool.trusted])).toEqual([
      ['platform.echo', 'platform__echo', true],
      ['platform.add', 'platform__add', true],
      ['platform.delete_everything', 'platform__delete_everything', true],
    ]);
    expect(await host.call('platform.echo', { text: 'from the gateway' }, never)).toMatchObject({ ok: true, content: 'from the gateway' });
    expect(await host.call('platform.slow', { ms: 1 }, never)).toMatchObject({ ok: false, error: { code: 'tool_unknown' } });
  });

  it('connects no platform server without globs', async () => {
    const gateway = await testServer({ bearerToken: 't' });
    const { host, notices } = await track(connect([], { platform: { url: gateway.url, token: 't', toolGlobs: [], principal: 'agent:a1' } }));
    expect(notices).toEqual([]);
    expect(host.tools()).toEqual([]);
    expect(gateway.openSessions()).toBe(0);
  });
});

describe('lazy sessions and the listing cache', () => {
  const started: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((item) => item.close()));
  });
  async function hostOf(servers: McpServer[], extra: Partial<ConnectToolsOptions>) {
    const value = await connect(servers, extra);
    started.push(value.host);
    return value;
  }

  it('offers a listed server\'s tools without a session, opens one at the first call, shares it, and closes it', async () => {
    const http = await startTestMcpServer();
    started.push(http);
    const listings = new ToolListCache({ ttlMs: 60_000 });
    const first = await hostOf([httpServer('web', http.url)], { listings });
    expect(first.notices).toEqual([]);
    expect([http.sessionsOpened(), http.toolLists(), http.openSessions()]).toEqual([1, 1, 0]);
    // Another run of the workspace: the cached listing, no session at all.
    const second = await hostOf([httpServer('other-name', http.url)], { listings });
    expect(second.host.tools().map((tool) => tool.name)).toContain('other-name.delete_everything');
    expect(second.host.tools().find((tool) => tool.name === 'other-name.delete_everything')).toMatchObject({ destructive: true, readOnly: false });
    expect([http.sessionsOpened(), http.toolLists(), http.openSessions()]).toEqual([1, 1, 0]);
    // Parallel first calls share one connect; the session never lists.
    const results = await Promise.all([second.host.call('other-name.echo', { text: 'a' }, never), second.host.call('other-name.add', { a: 1, b: 2 }, never)]);
    expect(results).toMatchObject([{ ok: true, content: 'a' }, { ok: true, content: '3' }]);
    expect([http.sessionsOpened(), http.toolLists(), http.openSessions()]).toEqual([2, 1, 1]);
    await second.host.close();
    expect(http.openSessions()).toBe(0);
    expect(await second.host.call('other-name.echo', { text: 'late' }, never)).toMatchObject({ ok: false });
    expect(http.sessionsOpened()).toBe(2);
  });

  it('never serves one workspace\'s listing to another, nor to other credentials; lists again after the TTL', async () => {
    const http = await startTestMcpServer({ bearerToken: 'tok-a' });
    started.push(http);
    let now = 1_000_000;
    const listings = new ToolListCache({ ttlMs: 60_000, now: () => now });
    const server = (secret: string) => httpServer('web', http.url, { Authorization: { secret } });
    const secrets: Record<string, string> = { a: 'Bearer tok-a', b: 'Bearer tok-b' };
    const resolveSecret = (name: string) => Promise.resolve(secrets[name]!);
    await hostOf([server('a')], { listings, resolveSecret, workspaceId: 'ws-1' });
    await hostOf([server('a')], { listings, resolveSecret, workspaceId: 'ws-1' });
    expect(http.toolLists()).toBe(1);
    // The same URL and credentials in another workspace: listed for that workspace.
    await hostOf([server('a')], { listings, resolveSecret, workspaceId: 'ws-2' });
    expect(http.toolLists()).toBe(2);
    // Other credentials in the same workspace: the server is asked, and refuses them.
    const other = await hostOf([server('b')], { listings, resolveSecret, workspaceId: 'ws-1' });
    expect(codes(other.notices)).toEqual([['web', 'connect_failed']]);
    expect(other.host.tools()).toEqual([]);
    expect(http.unauthorized()).toBeGreaterThan(0);
    now += 60_001;
    await hostOf([server('a')], { listings, resolveSecret, workspaceId: 'ws-1' });
    expect(http.toolLists()).toBe(3);
  });

  it('lists a server once for runs setting up at once', async () => {
    const http = await startTestMcpServer();
    started.push(http);
    const listings = new ToolListCache({ ttlMs: 60_000 });
    const hosts = await Promise.all(Array.from({ length: 5 }, () => hostOf([httpServer('web', http.url)], { listings })));
    expect(hosts.every((value) => value.host.tools().length > 0)).toBe(true);
    expect(http.toolLists()).toBe(1);
  });

  it('a cached server that is down: its tools are offered, and its first call fails tool_unavailable naming the connect error', async () => {
    const http = await startTestMcpServer();
    const listings = new ToolListCache({ ttlMs: 60_000 });
    await hostOf([httpServer('web', http.url)], { listings });
    await http.close();
    const { host, notices } = await hostOf([httpServer('web', http.url)], { listings });
    expect(notices).toEqual([]);
    const result = await host.call('web.echo', { text: 'anyone?' }, never);
    expect(result).toMatchObject({ ok: false, error: { code: 'tool_unavailable', message: expect.stringContaining('could not be connected (connect_failed)') } });
    // Remembered for the run: the next call fails at once.
    const again = await host.call('web.add', { a: 1, b: 1 }, never);
    expect(again).toMatchObject({ ok: false, error: { code: 'tool_unavailable' } });
    expect(again.durationMs).toBeLessThan(50);
  });

  it('starts a stdio server\'s process for a run only at its first call', async () => {
    const file = logFile();
    const listings = new ToolListCache({ ttlMs: 60_000 });
    await hostOf([stdioServer('local', file)], { listings });
    const { host } = await hostOf([stdioServer('local', file)], { listings });
    expect(readTestMcpLog(file).started).toHaveLength(1);
    expect(await host.call('local.echo', { text: 'now' }, never)).toMatchObject({ ok: true, content: 'now' });
    expect(readTestMcpLog(file).started).toHaveLength(2);
  });
});
