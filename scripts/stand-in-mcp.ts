import { startStandInMcpServer } from '@switchyard/testing';

/*
 * Runs the stand-in scorecard service and code host (decision 0049) on
 * 127.0.0.1 so the first-party templates can be tried by hand:
 * `npx tsx scripts/stand-in-mcp.ts`. It prints each MCP URL with the
 * Authorization value to store as the template's secret, and every call it receives.
 */
async function main(): Promise<void> {
  const server = await startStandInMcpServer();
  for (const name of ['scorecard', 'code'] as const) {
    console.log(`${name}: ${server.urls[name]}  Authorization: Bearer ${server.tokens[name]}`);
  }
  let seen = 0;
  const timer = setInterval(() => {
    for (const call of server.calls.slice(seen)) console.log(`call ${call.server}.${call.tool} ${JSON.stringify(call.arguments)}`);
    seen = server.calls.length;
  }, 500);
  const stop = () => {
    clearInterval(timer);
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

void main();
