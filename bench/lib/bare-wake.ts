/**
 * Why this exists: an idle teammate's wake crosses the hops decision 0035
 * prescribes — the post's HTTP request, the roster row, the mailbox post, the
 * delivery's commit, the activation job, its pickup, the claim's commit, the
 * mailbox read, the model request. This runs those hops bare (raw node:http,
 * one statement or command each, none of the platform's code: no auth, no
 * validation, no facts, no transcript) in two processes standing for the
 * gateway and the runner (bare-wake-process.ts), on the same Redis and
 * PostgreSQL, so that bench:teams can set the platform's wake beside the
 * floor of its path on the machine at hand, measured in the same run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { deleteKeys } from '@switchyard/testing';
import { HttpLoad } from './http-load';
import { processCpuMs } from './process-cpu';

export interface BareWakeOptions {
  /** The database the bare tables go in (created and dropped here). */
  dbUrl: string;
  redisUrl: string;
  /** Key prefix of the bare mailboxes and queue (deleted here). */
  prefix: string;
  sessions: number;
  /** Posts a second, round robin over the sessions. */
  rate: number;
  count: number;
}

export interface BareWake {
  /** Post sent → model request arrived, in ms, per post. */
  latencies: number[];
  /** CPU of each bare process over the load, in % of one core. */
  cpu: { gateway: number; runner: number };
}

const PROCESS = path.join(__dirname, 'bare-wake-process.ts');

/** An answer with its length (the load generator reads bodies by `Content-Length`). */
export function answer(res: ServerResponse, status: number, json: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) }).end(json);
}

/** A request's body as text. */
export async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function start(mode: 'gateway' | 'runner', env: Record<string, string>): Promise<{ child: ChildProcess; first: Record<string, unknown> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', PROCESS, mode], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bare ${mode} exited (${code})`)));
    child.stdout!.once('data', (chunk: Buffer) => resolve({ child, first: JSON.parse(chunk.toString().split('\n')[0]!) as Record<string, unknown> }));
  });
}

/** Runs the bare wake: `count` posts at `rate`, after a warm-up of one post per session. */
export async function bareWake(options: BareWakeOptions): Promise<BareWake> {
  const { dbUrl, redisUrl, prefix, sessions, rate, count } = options;
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  await db.query(`CREATE TABLE bare_wake_roster (name text PRIMARY KEY, session uuid NOT NULL, stopped boolean NOT NULL DEFAULT false);
    CREATE TABLE bare_wake_runs (id uuid PRIMARY KEY, lane uuid NOT NULL, status text NOT NULL, queued_at timestamptz NOT NULL DEFAULT now(), started_at timestamptz)`);
  await db.query('INSERT INTO bare_wake_roster (name, session) SELECT $1 || n, gen_random_uuid() FROM generate_series(0, $2 - 1) AS n', ['mate-', sessions]);

  const arrived = new Map<string, number>();
  const model: Server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      arrived.set((JSON.parse(body) as { id: string }).id, performance.now());
      answer(res, 200, '{}');
    });
  });
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
  const env = { BARE_DB_URL: dbUrl, REDIS_URL: redisUrl, BARE_PREFIX: prefix, BARE_MODEL_URL: `http://127.0.0.1:${(model.address() as AddressInfo).port}` };
  const children: ChildProcess[] = [];
  let posts: HttpLoad | undefined;
  try {
    const gateway = await start('gateway', env);
    children.push(gateway.child);
    const runner = await start('runner', env);
    children.push(runner.child);
    posts = new HttpLoad(`http://127.0.0.1:${gateway.first.port as number}`, {}, 64);
    const sent = new Map<string, number>();
    const post = (i: number, record: boolean) => {
      const id = randomUUID();
      if (record) sent.set(id, performance.now());
      return JSON.stringify({ name: `mate-${i % sessions}`, id, content: `bare ${i}` });
    };
    const accepted = (status: number) => {
      if (status !== 202) throw new Error(`the bare gateway answered ${status}`);
    };
    await posts.openLoop(rate, sessions, '/m', (i) => post(i, false), accepted);
    const before = { gateway: processCpuMs(gateway.child.pid!)!, runner: processCpuMs(runner.child.pid!)! };
    const startedAt = performance.now();
    await posts.openLoop(rate, count, '/m', (i) => post(i, true), accepted);
    const deadline = Date.now() + 30_000;
    while ([...sent.keys()].some((id) => !arrived.has(id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const elapsed = performance.now() - startedAt;
    const share = (pid: number, ms: number) => ((processCpuMs(pid)! - ms) / elapsed) * 100;
    return {
      latencies: [...sent].flatMap(([id, at]) => (arrived.has(id) ? [arrived.get(id)! - at] : [])),
      cpu: { gateway: share(gateway.child.pid!, before.gateway), runner: share(runner.child.pid!, before.runner) },
    };
  } finally {
    posts?.close();
    for (const child of children) child.kill('SIGKILL');
    await new Promise((resolve) => model.close(resolve));
    await db.query('DROP TABLE IF EXISTS bare_wake_roster, bare_wake_runs');
    await db.end();
    const redis = new Redis(redisUrl);
    await deleteKeys(redis, `${prefix}:bare-wake:*`);
    redis.disconnect();
  }
}
