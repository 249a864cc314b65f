/**
 * Why this exists: what a run costs is mostly the round trips it takes, and
 * which ones is not visible from outside a process. Loaded into a service with
 * `--import` (bench:match's BENCH_ROUND_TRIPS=1 does it), this counts every
 * request the process writes to Redis (by command; a Lua script by the name
 * ioredis's defineCommand was given), to PostgreSQL (by statement: the first
 * 60 characters of a prepared statement's text) and other TCP writes.
 * SIGUSR2 starts a window (counts from zero) and says so in
 * `$ROUND_TRIPS_DIR/<pid>.started`; SIGWINCH writes the window's counts as
 * JSON to `$ROUND_TRIPS_DIR/<pid>.json`. Only for benchmarks: it
 * wraps net.Socket.prototype.write.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';

const portOf = (url) => {
  try {
    const parsed = new URL(url);
    return Number(parsed.port) || (parsed.protocol.startsWith('redis') ? 6379 : 5432);
  } catch {
    return undefined;
  }
};
const REDIS_PORT = portOf(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const PG_PORT = portOf(process.env.DATABASE_URL ?? 'postgresql://127.0.0.1:5432/x');
const OUT = process.env.ROUND_TRIPS_DIR ?? '/tmp/round-trips';

/** Counts of the open window, by `store: what`. */
let counts = new Map();
/** Prepared statements' texts by name (PostgreSQL's Parse message), kept across windows. */
const statements = new Map();
const bump = (key) => counts.set(key, (counts.get(key) ?? 0) + 1);

/**
 * Lua scripts' names, as ioredis's defineCommand (ours and BullMQ's) was
 * given them: by their SHA's first 8 characters (EVALSHA) and by their first
 * 40 characters (EVAL, which a connection sends the first time).
 */
const scripts = new Map();
try {
  const { Redis } = createRequire(path.join(process.cwd(), 'package.json'))('ioredis');
  const define = Redis.prototype.defineCommand;
  Redis.prototype.defineCommand = function namedScript(name, definition) {
    scripts.set(createHash('sha1').update(definition.lua).digest('hex').slice(0, 8), name);
    scripts.set(definition.lua.slice(0, 40), name);
    return define.call(this, name, definition);
  };
} catch {
  // No ioredis from here: scripts keep their SHA.
}

/** Each Redis command of a RESP chunk (a pipeline writes several in one). */
function redisCommands(text) {
  const found = [];
  for (const match of text.matchAll(/(?:^|\r\n)\*\d+\r\n\$\d+\r\n([A-Za-z]+)\r\n(?:\$\d+\r\n([^\r]{0,40}))?/g)) {
    const name = match[1].toUpperCase();
    const script = name === 'EVALSHA' ? scripts.get(match[2]?.slice(0, 8)) ?? match[2]?.slice(0, 8) : name === 'EVAL' ? scripts.get(match[2]) : undefined;
    found.push(script ? `script ${script}` : name);
  }
  return found;
}

/** The statement a PostgreSQL Bind (or simple Query) message runs; Parse messages name their text. */
function pgStatement(chunk) {
  const type = String.fromCharCode(chunk[0]);
  const body = chunk.toString('utf8', 5, Math.min(chunk.length, 400));
  if (type === 'P') {
    const name = body.split('\0')[0];
    statements.set(name, body.slice(name.length + 1).split('\0')[0].replace(/\s+/g, ' ').slice(0, 60));
    return undefined;
  }
  if (type === 'B') {
    const portal = body.split('\0')[0];
    const name = body.slice(portal.length + 1).split('\0')[0];
    return statements.get(name) ?? `statement ${name}`;
  }
  if (type === 'Q') return body.split('\0')[0].replace(/\s+/g, ' ').slice(0, 60);
  return undefined;
}

const write = net.Socket.prototype.write;
net.Socket.prototype.write = function countedWrite(chunk, ...rest) {
  try {
    const port = this.remotePort;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk.slice(0, 400), 'latin1') : Buffer.isBuffer(chunk) ? chunk : undefined;
    if (bytes && port === REDIS_PORT) {
      const commands = redisCommands(bytes.toString('latin1', 0, 400));
      bump(`redis: ${commands.length > 0 ? commands.join(' + ') : 'other'}`);
    } else if (bytes && port === PG_PORT) {
      const statement = pgStatement(bytes);
      if (statement) bump(`postgresql: ${statement}`);
    } else if (port !== undefined) {
      bump('other: TCP writes');
    }
  } catch {
    // Counting never breaks a write.
  }
  return write.call(this, chunk, ...rest);
};

process.on('SIGUSR2', () => {
  counts = new Map();
  // Said, so a window's end is asked for only after its start: two signals need not be taken in the order sent.
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(path.join(OUT, `${process.pid}.started`), '');
});
process.on('SIGWINCH', () => {
  fs.mkdirSync(OUT, { recursive: true });
  // Written aside, then renamed: the reader waits for the file to exist and must never read it half written.
  const file = path.join(OUT, `${process.pid}.json`);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(Object.fromEntries(counts)));
  fs.renameSync(`${file}.tmp`, file);
});
