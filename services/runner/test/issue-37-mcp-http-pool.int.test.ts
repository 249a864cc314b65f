import { createLogger } from '@switchyard/logging';
import { startTestMcpServer, type TestMcpHttpServer } from '@switchyard/testing';
import { connectTools, McpHttpPool, ToolListCache } from '../src/tools';

/**
 * Issue 37, item 1 (decision 0053): the runs of one process share the
 * sockets to an MCP server, bounded per host, as their model calls share
 * theirs. Forty runs' tool hosts — each its own MCP session, as forty runs
 * in flight — call one server's slow tool at once through a pool of 4: every
 * call is answered, and the server never holds more than 4 connections.
 * The real MCP test server over Streamable HTTP, counting its sockets.
 */
jest.setTimeout(120_000);

const log = createLogger({ service: 'mcp-pool-test', level: 'silent' });
const never = new AbortController().signal;

describe('issue 37: MCP tool calls share a bounded pool of sockets per host', () => {
  let mcp: TestMcpHttpServer;
  const pool = new McpHttpPool({ connectionsPerHost: 4 });
  beforeAll(async () => {
    mcp = await startTestMcpServer();
  });
  afterAll(async () => {
    pool.close();
    await mcp?.close();
  });

  it('40 runs calling one MCP server at once use at most the pool’s 4 sockets, and every call is answered', async () => {
    const listings = new ToolListCache({ ttlMs: 60_000 });
    const runs = 40;
    const hosts = await Promise.all(
      Array.from({ length: runs }, () =>
        connectTools({ servers: [{ name: 'web', transport: 'http', url: mcp.url }], workspaceId: 'w-pool', log, listings, pool, options: { allowPrivate: true, callTimeoutMs: 60_000 } }),
      ),
    );
    try {
      expect(hosts.flatMap(({ notices }) => notices)).toEqual([]);
      const results = await Promise.all(hosts.map(({ host }) => host.call('web.slow', { ms: 200 }, never)));

      expect(results.filter((result) => result.ok)).toHaveLength(runs);
      expect(mcp.calls.filter((call) => call.name === 'slow')).toHaveLength(runs);
      // Each run opened its own session, all over the same few sockets.
      expect(mcp.sessionsOpened()).toBeGreaterThanOrEqual(runs);
      expect(mcp.peakConnections()).toBeGreaterThan(0);
      expect(mcp.peakConnections()).toBeLessThanOrEqual(4);
    } finally {
      await Promise.all(hosts.map(({ host }) => host.close()));
    }
  });
});
