import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { dropDatabase, ensureDatabase } from '@switchyard/db';
import { HttpLoad } from '../http-load';
import { CpuWindow } from '../process-cpu';
import { PIPE_SCHEMA, wallNow } from './schema';

/** One measured load of the peer. */
export interface PeerMeasure {
  rate: number;
  offered: number;
  /** Jobs started within the wait after the load. */
  started: number;
  /** Requests the front did not answer 202 (they made no job). */
  refused: number;
  /** HTTP request sent → run started, ms (a job not started counts as started when the wait ended). */
  toStart: number[];
  /** Event committed → run started, ms (the peer's "published → started"). */
  fromCommit: number[];
  /** Its processes' CPU in % of one core, by group, over the offer window. */
  cpu: Record<string, number>;
  /** Peer CPU (server, worker, its PostgreSQL backends, Redis) over the runs completed in the window, ms. */
  cpuPerRunMs: number | null;
  ended: number;
}

/** A forked child with request/response over IPC. */
class Child {
  private seq = 0;
  private readonly waiters = new Map<number, (message: Record<string, unknown>) => void>();
  readonly ready: Promise<Record<string, unknown>>;
  readonly child: ChildProcess;

  constructor(script: string, args: string[]) {
    this.child = fork(path.join(__dirname, script), args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${script} not ready in 60 s`)), 60_000);
      this.child.on('message', (message: Record<string, unknown>) => {
        if (message.ready) {
          clearTimeout(timer);
          resolve(message);
        } else this.waiters.get(message.id as number)?.(message);
      });
    });
  }

  call(message: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = ++this.seq;
    return new Promise((resolve) => {
      this.waiters.set(id, (reply) => {
        this.waiters.delete(id);
        resolve(reply);
      });
      this.child.send({ ...message, id });
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ cmd: 'stop' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Why this exists: issue 37 measures Switchyard against the glue a Node user would write
 * ("pipe-bullmq", bench/lib/pipe-bullmq/schema.ts) in the same process tree and window. The peer
 * runs as two processes of its own (front and worker) on the bench's Redis (its own key prefix)
 * and a database of its own on the same PostgreSQL server; `measure` offers a load open loop, as
 * bench:match does, and reads CPU from /proc like it.
 */
export class PipeBullmqPeer {
  private server?: Child;
  private worker?: Child;
  private load?: HttpLoad;
  private pg?: Client;
  private offered = 0;
  /** Requests not answered 202 (the shared server refused a connection, say): counted, never thrown mid-load. */
  private refused = 0;

  constructor(private readonly databaseUrl: string, private readonly redisUrl: string, private readonly prefix: string, private readonly redisPid: number) {}

  async start(): Promise<void> {
    await ensureDatabase(this.databaseUrl);
    this.pg = new Client({ connectionString: this.databaseUrl });
    await this.pg.connect();
    await this.pg.query(`DROP TABLE IF EXISTS runs, events, consumers, ws_seq`);
    await this.pg.query(PIPE_SCHEMA);
    this.worker = new Child('worker.ts', [this.databaseUrl, this.redisUrl, this.prefix]);
    await this.worker.ready;
    this.server = new Child('server.ts', [this.databaseUrl, this.redisUrl, this.prefix]);
    const { port } = (await this.server.ready) as { port: number };
    this.load = new HttpLoad(`http://127.0.0.1:${port}`, {}, 16);
  }

  /** `warmSeconds` of the load, then `seconds` measured; waits up to `waitMs` for every job to start. */
  async measure(rate: number, seconds: number, warmSeconds: number, waitMs: number): Promise<PeerMeasure> {
    await this.offer(rate, Math.max(1, Math.round(rate * warmSeconds)), `w${this.offered}`, waitMs);
    const tag = `m${this.offered}`;
    const total = Math.max(1, Math.round(rate * seconds));
    const backends = async () => (await this.pg!.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')).rows.map((r) => r.pid);
    const pgPids = await backends();
    const window = await new CpuWindow(async () => ({
      'peer node': [this.server!.child.pid!, this.worker!.child.pid!],
      'peer PostgreSQL': pgPids,
      Redis: this.redisPid ? [this.redisPid] : [],
    })).start();
    const windowStart = new Date();
    const doneBefore = ((await this.worker!.call({ cmd: 'counts', tag })).done as number) ?? 0;
    const refusedBefore = this.refused;
    await this.sendAll(rate, total, tag);
    const cpu = await window.end();
    const windowMs = Date.now() - windowStart.getTime();
    const ended = ((await this.worker!.call({ cmd: 'counts', tag })).done as number) - doneBefore;
    const allStarted = await this.waitStarted(tag, total, waitMs);
    const measuredAt = wallNow();
    const { lat, latEv } = (await this.worker!.call({ cmd: 'take', tag })) as unknown as { lat: number[]; latEv: number[] };
    const missing = Math.max(0, total - lat.length);
    const pct = Object.values(cpu).reduce((a, b) => a + b, 0);
    await this.drain(30_000);
    return {
      rate, offered: total, started: allStarted ? total : lat.length, refused: this.refused - refusedBefore,
      toStart: [...lat, ...Array<number>(missing).fill(measuredAt - windowStart.getTime())],
      fromCommit: latEv, cpu, ended,
      cpuPerRunMs: ended > 0 ? ((pct / 100) * windowMs) / ended : null,
    };
  }

  async stop(): Promise<void> {
    this.load?.close();
    await Promise.allSettled([this.server?.stop(), this.worker?.stop()]);
    await this.pg?.end().catch(() => undefined);
    await dropDatabase(this.databaseUrl).catch(() => undefined);
  }

  private async offer(rate: number, count: number, tag: string, waitMs: number): Promise<void> {
    await this.sendAll(rate, count, tag);
    await this.waitStarted(tag, count, waitMs);
    await this.worker!.call({ cmd: 'take', tag });
    await this.drain(30_000);
  }

  private async sendAll(rate: number, count: number, tag: string): Promise<void> {
    this.offered += count;
    await this.load!.openLoop(rate, count, '/events', () => JSON.stringify({ kind: 'lat.fact', t: wallNow(), tag }), (status) => {
      if (status !== 202) this.refused += 1;
    });
  }

  private async waitStarted(tag: string, count: number, waitMs: number): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline) {
      if (((await this.worker!.call({ cmd: 'counts', tag })).started as number) >= count) return true;
      await sleep(50);
    }
    return false;
  }

  private async drain(waitMs: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline && ((await this.worker!.call({ cmd: 'counts', tag: '' })).done as number) < this.offered) await sleep(50);
  }
}
