/** Node's socket errors when a store's server is not there or went away. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * PostgreSQL's SQLSTATEs for a server that is refusing or lost connections
 * (class 08, shutdown and startup 57P0x, too many connections), and
 * Prisma's codes for the same (cannot reach, timed out, closed, pool timeout,
 * an interactive transaction that found no connection in time).
 */
const STORE_CODES = new Set(['08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03', '53300', 'P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);

/** @prisma/adapter-pg's error kinds for the same. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

/** ioredis' messages when a command cannot reach Redis (it gives them no code). */
const REDIS_MESSAGES = [/^Reached the max retries per request limit/, /^Stream isn't writeable/, /^Connection is closed\.?$/];

/** node-postgres' messages for the same (no code either). */
const PG_MESSAGES = [/^Connection terminated unexpectedly/, /timeout exceeded when trying to connect/];

/** A link of an error's chain, as the checks read it. */
interface ErrorLink {
  name?: unknown;
  code?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/** Whether `test` holds for the error or anything it wraps (`cause`, an AggregateError's `errors`, a Prisma driver-adapter error). */
function anyLink(error: unknown, test: (link: ErrorLink) => boolean): boolean {
  const queue: unknown[] = [error];
  // Bounded: a cause chain is short, and a cycle must not loop.
  for (let seen = 0; queue.length > 0 && seen < 20; seen++) {
    const current = queue.shift();
    if (current === null || typeof current !== 'object') continue;
    const link = current as ErrorLink;
    if (test(link)) return true;
    queue.push(link.cause, link.meta?.driverAdapterError);
    if (Array.isArray(link.errors)) queue.push(...link.errors);
  }
  return false;
}

/** ioredis' own signs of a command that could not reach Redis. */
function redisLink({ name, message }: ErrorLink): boolean {
  return name === 'MaxRetriesPerRequestError' || (typeof message === 'string' && REDIS_MESSAGES.some((pattern) => pattern.test(message)));
}

/**
 * Whether an error means that Redis or PostgreSQL is not reachable (rather
 * than a bug): the error itself or anything it wraps. The gateway answers
 * such a request 503 with `Retry-After`, so that clients retry it.
 */
export function isStoreUnavailable(error: unknown): boolean {
  return anyLink(
    error,
    (link) =>
      redisLink(link) ||
      (typeof link.message === 'string' && PG_MESSAGES.some((pattern) => pattern.test(link.message as string))) ||
      (typeof link.kind === 'string' && ADAPTER_KINDS.has(link.kind)) ||
      (typeof link.code === 'string' && (SOCKET_CODES.has(link.code) || STORE_CODES.has(link.code))),
  );
}

/**
 * Whether an error is ioredis failing to reach Redis (a blip: the command
 * may be sent again once it is back). The runner retries a step on it
 * within the run's deadline (decision 0051).
 */
export function isRedisUnavailable(error: unknown): boolean {
  return anyLink(error, redisLink);
}
