// The peer's front (decision 0054's bench): `server.ts <database url> <redis url> <prefix>`, forked with IPC.
// POST /events {kind, t, tag}: INSERT the event with the next per-workspace seq (one statement), then
// one BullMQ job per matching consumer; 202. Consumers are loaded at start, as Switchyard's matcher does.
import http from 'node:http';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import pg from 'pg';
import { PIPE_QUEUE, matches, wallNow, type PipeJob } from './schema';

const [databaseUrl, redisUrl, prefix] = process.argv.slice(2) as [string, string, string];
const WS = 1;
const ACCEPTED = '{"accepted":true}';
const INSERT_EVENT = `WITH s AS (UPDATE ws_seq SET last_seq = last_seq + 1 WHERE ws = $1 RETURNING last_seq)
  INSERT INTO events (ws, seq, kind, payload) SELECT $1, last_seq, $2, $3 FROM s RETURNING id::text, seq::text`;

async function main(): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  const consumers = (await pool.query<{ id: number; ws: number; kind_pattern: string }>('SELECT id, ws, kind_pattern FROM consumers')).rows;
  const connection = new IORedis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue<PipeJob>(PIPE_QUEUE, { connection, prefix, defaultJobOptions: { removeOnComplete: true } });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { kind: string; t: number; tag: string };
        const ids = consumers.filter((c) => c.ws === WS && matches(c.kind_pattern, body.kind)).map((c) => c.id);
        const event = (await pool.query<{ id: string; seq: string }>(INSERT_EVENT, [WS, body.kind, {}])).rows[0]!;
        const tEv = wallNow();
        await Promise.all(ids.map((consumer) => queue.add('run', { eventId: event.id, seq: event.seq, consumer, t: body.t, tEv, tag: body.tag })));
        // A content-length, not chunks: the bench's HTTP client reads framed answers only.
        res.writeHead(202, { 'content-type': 'application/json', 'content-length': ACCEPTED.length }).end(ACCEPTED);
      })().catch((error: unknown) => {
        console.error(error);
        res.writeHead(500, { 'content-length': 0 }).end();
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send!({ ready: true, port: (server.address() as { port: number }).port }));
  process.on('message', (message: { cmd: string }) => {
    if (message.cmd !== 'stop') return;
    server.close();
    server.closeAllConnections();
    void Promise.allSettled([queue.close(), pool.end()]).then(() => {
      connection.disconnect();
      process.exit(0);
    });
  });
}

void main();
