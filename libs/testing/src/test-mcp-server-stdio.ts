/**
 * Serves the test MCP tools over stdio, for tests of stdio MCP servers:
 *
 *   node --import tsx libs/testing/src/test-mcp-server-stdio.ts --log /tmp/calls.jsonl [--stall]
 *
 * Each line of the log file (`--log`, else the TEST_MCP_LOG variable; none:
 * no log) is JSON: `{event: 'started', pid, at}` once, then
 * `{event: 'call', name, arguments, at, pid}` per tool call. Lines are
 * written synchronously so a crash or a kill loses none. `--stall` starts
 * without answering anything (a server that never completes the handshake).
 * The process exits when its stdin closes, as a stdio server should.
 */
import { appendFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { connectTestMcpServer } from './test-mcp-server';

function flagValue(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

const logFile = flagValue('--log') ?? process.env.TEST_MCP_LOG;
const log = (line: Record<string, unknown>) => {
  if (logFile) appendFileSync(logFile, `${JSON.stringify({ ...line, pid: process.pid })}\n`);
};

log({ event: 'started', at: new Date().toISOString() });
process.stdin.on('end', () => process.exit(0));
if (process.argv.includes('--stall')) {
  process.stdin.resume();
} else {
  connectTestMcpServer(new StdioServerTransport(), {
    record: (call) => log({ event: 'call', ...call }),
    crash: () => process.exit(3),
  }).catch((error: unknown) => {
    process.stderr.write(`test MCP server failed to start: ${String(error)}\n`);
    process.exit(1);
  });
}
