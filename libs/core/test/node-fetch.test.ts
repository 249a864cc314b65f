import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeFetch, createPinnedFetch } from '../src/node-fetch';

/**
 * The pinned fetch connects to the checked address whatever the name would
 * resolve to now (a name under .test never resolves), and to no other host;
 * the unpinned one (the operator's endpoints) resolves as usual.
 */
describe('node fetch', () => {
  const seen: Array<{ method?: string; url?: string; headers: IncomingHttpHeaders; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      if (req.url === '/redirect') return void res.writeHead(307, { location: '/elsewhere' }).end();
      if (req.url === '/empty') return void res.writeHead(204).end();
      res.writeHead(200, { 'content-type': 'text/plain', 'x-multi': 'a' }).end(`hello ${body}`);
    });
  });
  let port = 0;
  const pinned = () => createPinnedFetch({ hostname: 'mcp.example.test', address: '127.0.0.1', family: 4 });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('reaches the pinned address with the original host name', async () => {
    const { fetch, close } = pinned();
    const response = await fetch(`http://mcp.example.test:${port}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer t' }, body: '{"a":1}' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-multi')).toBe('a');
    expect(await response.text()).toBe('hello {"a":1}');
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/mcp', headers: { host: `mcp.example.test:${port}`, authorization: 'Bearer t' } });
    close();
  });

  it('returns redirects and empty responses as they are', async () => {
    const { fetch, close } = pinned();
    const redirect = await fetch(new URL(`http://mcp.example.test:${port}/redirect`), { redirect: 'manual' });
    expect(redirect.status).toBe(307);
    expect(redirect.headers.get('location')).toBe('/elsewhere');
    await redirect.body?.cancel();
    const empty = await fetch(`http://mcp.example.test:${port}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    close();
  });

  it('refuses any other host, even one that resolves', async () => {
    const { fetch, close } = pinned();
    await expect(fetch(`http://127.0.0.1:${port}/mcp`)).rejects.toThrow(/only mcp.example.test was checked/);
    await expect(fetch(`http://localhost:${port}/mcp`)).rejects.toThrow(/only mcp.example.test was checked/);
    close();
  });

  it('honours an abort signal', async () => {
    const { fetch, close } = pinned();
    await expect(fetch(`http://mcp.example.test:${port}/mcp`, { signal: AbortSignal.abort() })).rejects.toThrow();
    close();
  });

  it('unpinned, reaches any host it resolves, and not a name that does not resolve', async () => {
    const { fetch, close } = createNodeFetch();
    for (const host of ['127.0.0.1', 'localhost']) {
      const response = await fetch(`http://${host}:${port}/mcp`, { method: 'POST', body: host });
      expect(await response.text()).toBe(`hello ${host}`);
    }
    await expect(fetch(`http://mcp.example.test:${port}/mcp`)).rejects.toThrow();
    close();
  });
});
