import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { waitFor } from '@switchyard/testing';
import { createModelHttpPool, IDLE_KEEP_ALIVE_MS, type ModelHttpPool } from '../src/model/model-http-pool';

jest.setTimeout(60_000);

/** Node's default server idle timeout: what the pool must stay under when the server does not say. */
const SERVER_KEEP_ALIVE_MS = 5_000;

/** How each connection the server accepted ended: who closed it, when (ms after its last answer). */
interface Connection {
  requests: number;
  lastAnswerAt?: number;
  /** The client's FIN reached the server before the server closed it. */
  closedByClient?: boolean;
  closedAfterMs?: number;
}

/**
 * Issue 31's "Connection error." turns: a model answer streamed as events sets
 * `Connection: keep-alive` itself, and Node's server then sends no
 * `Keep-Alive: timeout` hint; a pool that kept such a socket longer than the
 * server's idle timeout handed a request a socket the server was closing at
 * that moment. The pool closes an idle connection itself before the server's
 * 5 s, and still reuses one between requests.
 */
describe('the model HTTP pool and a server’s keep-alive timeout', () => {
  let server: Server;
  let pool: ModelHttpPool;
  let url: string;
  const connections: Connection[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const connection = (req.socket as Socket & { record?: Connection }).record!;
      connection.requests += 1;
      req.resume();
      req.on('end', () => {
        // As the local OpenAI-compatible server answers a stream: Connection set by the handler, so no Keep-Alive hint.
        res.writeHead(200, { 'content-type': 'text/event-stream', connection: 'keep-alive' });
        res.end('data: [DONE]\n\n', () => (connection.lastAnswerAt = performance.now()));
      });
    });
    server.keepAliveTimeout = SERVER_KEEP_ALIVE_MS;
    server.on('connection', (socket: Socket & { record?: Connection }) => {
      const record: Connection = { requests: 0 };
      socket.record = record;
      connections.push(record);
      socket.on('end', () => (record.closedByClient ??= true));
      socket.on('close', () => {
        record.closedByClient ??= false;
        record.closedAfterMs = performance.now() - (record.lastAnswerAt ?? performance.now());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
    pool = createModelHttpPool({ connectionsPerHost: 4 });
  });
  afterAll(async () => {
    await pool?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  const post = async (through: ModelHttpPool) => {
    const response = await through.fetch(url, { method: 'POST', body: '{}', dispatcher: through.dispatcher });
    expect(response.headers.get('keep-alive')).toBeNull();
    await response.text();
  };
  const allClosed = () => waitFor(async () => connections.every((c) => c.closedAfterMs !== undefined), { what: 'the idle connections closed', timeoutMs: 30_000 });

  it('closes an idle connection itself, before the server’s idle timeout', async () => {
    await post(pool);
    await post(pool);
    await allClosed();
    for (const connection of connections) {
      expect(connection.closedByClient).toBe(true);
      expect(connection.closedAfterMs!).toBeLessThan(SERVER_KEEP_ALIVE_MS);
    }
    expect(IDLE_KEEP_ALIVE_MS).toBeLessThan(SERVER_KEEP_ALIVE_MS);
  });

  it('(the cause) kept 30 s as before, the connection is closed by the server while the pool still holds it', async () => {
    connections.length = 0;
    const before = createModelHttpPool({ connectionsPerHost: 4, keepAliveMs: 30_000 });
    try {
      await post(before);
      await allClosed();
      expect(connections.map((c) => c.closedByClient)).toEqual([false]);
    } finally {
      await before.close();
    }
  });
});
