// The peer's worker (decision 0054's bench): `worker.ts <database url> <redis url> <prefix>`, forked with IPC.
// Per job: INSERT the run row `started`, UPDATE it `completed`; records request sent → started and
// event committed → started, by tag, handed to the bench on `take`.
import { Worker } from 'bullmq';
import IORedis from 'ioredis';
import pg from 'pg';
import { PIPE_CONCURRENCY, PIPE_QUEUE, wallNow, type PipeJob } from './schema';

const [databaseUrl, redisUrl, prefix] = process.argv.slice(2) as [string, string, string];

async function main(): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: PIPE_CONCURRENCY });
  const stats = new Map<string, { lat: number[]; latEv: number[] }>();
  let done = 0;
  const connection = new IORedis(redisUrl, { maxRetriesPerRequest: null });
  const worker = new Worker<PipeJob>(PIPE_QUEUE, async (job) => {
    const t = wallNow();
    const data = job.data;
    let s = stats.get(data.tag);
    if (!s) stats.set(data.tag, (s = { lat: [], latEv: [] }));
    s.lat.push(t - data.t);
    s.latEv.push(t - data.tEv);
    const run = await pool.query<{ id: string }>(`INSERT INTO runs (event_id, consumer_id, status, started_at) VALUES ($1, $2, 'started', now()) RETURNING id::text`, [data.eventId, data.consumer]);
    await pool.query(`UPDATE runs SET status = 'completed', ended_at = now() WHERE id = $1`, [run.rows[0]!.id]);
    done += 1;
  }, { connection, prefix, concurrency: PIPE_CONCURRENCY, removeOnComplete: { count: 0 }, removeOnFail: { count: 1000 } });
  await worker.waitUntilReady();
  process.on('message', (message: { cmd: string; id: number; tag?: string }) => {
    if (message.cmd === 'counts') process.send!({ id: message.id, done, started: stats.get(message.tag ?? '')?.lat.length ?? 0 });
    else if (message.cmd === 'take') {
      const s = stats.get(message.tag ?? '') ?? { lat: [], latEv: [] };
      stats.delete(message.tag ?? '');
      process.send!({ id: message.id, ...s });
    } else if (message.cmd === 'stop') {
      void Promise.allSettled([worker.close(), pool.end()]).then(() => {
        connection.disconnect();
        process.exit(0);
      });
    }
  });
  process.send!({ ready: true });
}

void main();
