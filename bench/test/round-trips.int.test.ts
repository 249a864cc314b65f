import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { databaseServerUrl, redisUrl, withDatabase } from '@switchyard/testing';
import { ROUND_TRIPS_HOOK, RoundTripWindow, roundTripRows } from '../lib/round-trips';

const ROOT = path.resolve(__dirname, '../..');
const REDIS_URL = redisUrl();
// The server's own `postgres` database: the one that exists wherever the tests run (`npm test` names the server's
// `switchyard` database, which only `npm start` creates).
const DATABASE_URL = withDatabase(databaseServerUrl(), 'postgres');

/** A process with the hook that makes known requests of the real Redis and PostgreSQL, then says `done`. */
const CLIENT = `
const { Redis } = require('ioredis');
const { Client } = require('pg');
(async () => {
  const redis = new Redis(process.env.REDIS_URL);
  redis.defineCommand('echoArg', { numberOfKeys: 0, lua: 'return ARGV[1]' });
  const pg = new Client({ connectionString: process.env.DATABASE_URL });
  await pg.connect();
  for (let i = 0; i < 3; i++) await redis.echoArg(String(i));
  await redis.ping();
  await redis.ping();
  for (let i = 0; i < 4; i++) await pg.query({ name: 'one', text: 'SELECT $1::int AS n', values: [i] });
  process.stdout.write('done\\n');
  setInterval(() => undefined, 1000);
})();
`;

describe('round trips counted in a service (bench:match BENCH_ROUND_TRIPS=1)', () => {
  let child: ChildProcess | undefined;
  afterEach(() => child?.kill('SIGKILL'));

  it('counts Redis commands (a script by its name), prepared statements and nothing it did not send', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'round-trips-'));
    child = spawn(process.execPath, ['--import', ROUND_TRIPS_HOOK, '-e', CLIENT], {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL, DATABASE_URL, ROUND_TRIPS_DIR: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child!.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('done') && resolve());
      child!.on('exit', (code) => reject(new Error(`client exited ${code}`)));
    });
    const counts = (await new RoundTripWindow(dir, { client: child.pid! }).end()).client!;
    expect(counts['redis: script echoArg']).toBe(3);
    expect(counts['redis: PING']).toBe(2);
    expect(counts['postgresql: SELECT $1::int AS n']).toBe(4);
    expect(Object.keys(counts).filter((what) => what.includes('echoArg') || what.includes('SELECT $1'))).toHaveLength(2);
    const [row] = roundTripRows({ client: counts }, 1);
    expect(row).toContain('3.00 redis: script echoArg');
    expect(row).toContain('4.00 postgresql: SELECT $1::int AS n');
  });

  it('starts a window from zero', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'round-trips-'));
    child = spawn(process.execPath, ['--import', ROUND_TRIPS_HOOK, '-e', CLIENT], { cwd: ROOT, env: { ...process.env, REDIS_URL, DATABASE_URL, ROUND_TRIPS_DIR: dir }, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child!.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('done') && resolve()));
    const window = new RoundTripWindow(dir, { client: child.pid! });
    await window.start();
    expect(await window.end()).toEqual({ client: {} });
  });
});
