/**
 * The two processes of the bare wake (bare-wake.ts): `gateway` answers a post
 * with the hops decision 0035 prescribes, `runner` takes the wake's job and
 * makes the turn's hops. One statement or command per hop, nothing else.
 */
import { Queue, Worker } from 'bullmq';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { answer, bodyOf } from './bare-wake';
import { HttpLoad } from './http-load';

const DB_URL = process.env.BARE_DB_URL!;
const REDIS_URL = process.env.REDIS_URL!;
const PREFIX = process.env.BARE_PREFIX!;
const QUEUE = 'bare-wake';
const mailbox = (session: string) => `${PREFIX}:bare-wake:mailbox:${session}`;

/** The post: the roster row, the mailbox post, the delivery's commit (the turn queued), the job, the answer. */
function gateway(): void {
  const db = new pg.Pool({ connectionString: DB_URL, max: 10 });
  const redis = new Redis(REDIS_URL);
  const queue = new Queue(QUEUE, { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix: PREFIX });
  const server = createServer((req, res) => {
    void (async () => {
      const { name, id, content } = JSON.parse(await bodyOf(req)) as { name: string; id: string; content: string };
      const { rows } = await db.query<{ session: string }>('SELECT session::text FROM bare_wake_roster WHERE name = $1 AND NOT stopped', [name]);
      const session = rows[0]!.session;
      await redis.xadd(mailbox(session), '*', 'id', id, 'content', content);
      await db.query(`INSERT INTO bare_wake_runs (id, lane, status) VALUES ($1, $2, 'queued')`, [id, session]);
      await queue.add('wake', { id, session }, { jobId: id, removeOnComplete: true });
      answer(res, 202, JSON.stringify({ id }));
    })().catch((error: unknown) => answer(res, 500, JSON.stringify({ error: String(error) })));
  });
  server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as AddressInfo).port })));
}

/** The turn: the job's pickup, the claim's commit, the mailbox read, the model request, the ending's commit. */
function runner(): void {
  const db = new pg.Pool({ connectionString: DB_URL, max: 10 });
  const redis = new Redis(REDIS_URL);
  const model = new HttpLoad(process.env.BARE_MODEL_URL!, {}, 64);
  const worker = new Worker<{ id: string; session: string }>(
    QUEUE,
    async (job) => {
      const { id, session } = job.data;
      await db.query(`UPDATE bare_wake_runs SET status = 'running', started_at = now() WHERE id = $1 AND status = 'queued'`, [id]);
      const entries = await redis.xrange(mailbox(session), '-', '+');
      await redis.del(mailbox(session));
      await model.post('/model', JSON.stringify({ id, messages: entries.map(([, fields]) => fields[3]) }));
      await db.query(`UPDATE bare_wake_runs SET status = 'completed' WHERE id = $1`, [id]);
    },
    { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix: PREFIX, concurrency: 64 },
  );
  void worker.waitUntilReady().then(() => console.log(JSON.stringify({ ready: true })));
}

if (process.argv[2] === 'gateway') gateway();
else runner();
