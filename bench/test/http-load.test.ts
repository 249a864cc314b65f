import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@switchyard/testing';
import { HttpLoad } from '../lib/http-load';

/** A local server whose handler decides per request (`n` counts the requests on each socket). */
async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void) {
  const server = http.createServer((req, res) => {
    const socket = req.socket as typeof req.socket & { served?: number };
    socket.served = (socket.served ?? 0) + 1;
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      (req as http.IncomingMessage & { body?: string }).body = body;
      handler(req, res, socket.served!);
    });
  });
  let connections = 0;
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const echo = (req: http.IncomingMessage, res: http.ServerResponse) => {
  const body = JSON.stringify({ path: req.url, auth: req.headers.authorization, type: req.headers['content-type'], got: JSON.parse((req as http.IncomingMessage & { body: string }).body) });
  res.writeHead(202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
};

describe('HttpLoad', () => {
  it('posts JSON with its headers and reads the status and body, reusing at most `sockets` connections', async () => {
    const server = await serve(echo);
    const load = new HttpLoad(server.url, { authorization: 'Bearer t' }, 2);
    try {
      const responses = await Promise.all(Array.from({ length: 7 }, (_, i) => load.post('/v1/x', JSON.stringify({ i, text: 'é' }))));
      expect(responses.map((r) => r.status)).toEqual(Array(7).fill(202));
      expect(responses.map((r) => JSON.parse(r.text))).toEqual(
        Array.from({ length: 7 }, (_, i) => ({ path: '/v1/x', auth: 'Bearer t', type: 'application/json', got: { i, text: 'é' } })),
      );
      expect(server.connections()).toBe(2);
    } finally {
      load.close();
      await server.close();
    }
  });

  it('opens a new connection after the server closed the last one', async () => {
    const server = await serve((req, res) => {
      res.setHeader('connection', 'close');
      echo(req, res);
    });
    const load = new HttpLoad(server.url, {}, 1);
    try {
      expect((await load.post('/a', '{}')).status).toBe(202);
      await waitFor(async () => load.openConnections === 0, { timeoutMs: 5000, intervalMs: 5, what: 'the closed connection seen' });
      expect((await load.post('/b', '{}')).status).toBe(202);
      expect(server.connections()).toBe(2);
    } finally {
      load.close();
      await server.close();
    }
  });

  it('sends a request again, once, when a reused connection closes before answering it', async () => {
    // The second request on a socket is dropped with the socket, as a server closing an idle
    // keep-alive socket at that moment would.
    const server = await serve((req, res, n) => (n === 2 ? req.socket.destroy() : echo(req, res)));
    const load = new HttpLoad(server.url, {}, 1);
    try {
      expect((await load.post('/a', '{"k":1}')).status).toBe(202);
      const again = await load.post('/b', '{"k":2}');
      expect(again.status).toBe(202);
      expect(JSON.parse(again.text).got).toEqual({ k: 2 });
      expect(server.connections()).toBe(2);
    } finally {
      load.close();
      await server.close();
    }
  });

  it('fails a request whose fresh connection closes before answering', async () => {
    const server = await serve((req) => req.socket.destroy());
    const load = new HttpLoad(server.url, {}, 1);
    try {
      await expect(load.post('/a', '{}')).rejects.toThrow('connection closed before the response');
    } finally {
      load.close();
      await server.close();
    }
  });

  it('sends on schedule in an open loop and reports each status', async () => {
    const server = await serve((req, res) => res.writeHead(req.url === '/bad' ? 400 : 202, { 'content-length': '0' }).end());
    const load = new HttpLoad(server.url, {}, 4);
    try {
      const statuses: number[] = [];
      const started = performance.now();
      await load.openLoop(100, 20, '/ok', (i) => JSON.stringify({ i }), (status) => statuses.push(status));
      expect(performance.now() - started).toBeGreaterThanOrEqual(180);
      expect(statuses).toEqual(Array(20).fill(202));
      await expect(load.openLoop(100, 1, '/bad', () => '{}', (status) => { if (status !== 202) throw new Error(`status ${status}`); })).rejects.toThrow('status 400');
    } finally {
      load.close();
      await server.close();
    }
  });
});
