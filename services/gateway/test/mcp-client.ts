import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/**
 * Why this exists: the platform MCP server must work for a real MCP client,
 * so the tests speak to `/mcp` with the SDK's own Client and Streamable HTTP
 * transport (initialize, tools/list, tools/call over the wire), holding the
 * bearer token the way the runner and a person's MCP client do.
 */
export async function connectMcp(gatewayUrl: string, token?: string): Promise<Client> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', gatewayUrl), { requestInit: { headers } });
  const client = new Client({ name: 'switchyard-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

/** A tool result's text content, parsed as the JSON the platform tools answer with. */
export function resultJson(result: unknown): any {
  const content = (result as { content: Array<{ type: string; text?: string }> }).content;
  const text = content.find((item) => item.type === 'text')?.text;
  if (text === undefined) throw new Error(`no text content in ${JSON.stringify(result)}`);
  return JSON.parse(text);
}

/** Calls a tool and returns `{isError, body}` with the JSON body parsed. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; body: any }> {
  const result = await client.callTool({ name, arguments: args });
  return { isError: result.isError === true, body: resultJson(result) };
}

/**
 * A raw POST to `/mcp` with a Host header of the test's choosing (fetch
 * does not let a caller set Host), to show DNS-rebinding protection.
 */
export function postMcpWithHost(gatewayUrl: string, host: string, token: string): Promise<{ status: number; body: string }> {
  const url = new URL('/mcp', gatewayUrl);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          host,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
