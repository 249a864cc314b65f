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
const REDIS_MESSAGES = [/^Reached the max retries per request limit/, /^Stream isn't writeable/, /^Connection is closed\.?$/, /^Connection terminated unexpectedly/, /timeout exceeded when trying to connect/];

/**
 * Whether an error means that Redis or PostgreSQL is not reachable (rather
 * than a bug): the error itself or anything it wraps (`cause`, an
 * AggregateError's `errors`, a Prisma driver-adapter error). Such a request
 * is answered 503 with `Retry-After`, so that clients retry it.
 */
export function isStoreUnavailable(error: unknown): boolean {
  const queue: unknown[] = [error];
  // Bounded: a cause chain is short, and a cycle must not loop.
  for (let seen = 0; queue.length > 0 && seen < 20; seen++) {
    const current = queue.shift();
    if (current === null || typeof current !== 'object') continue;
    const { name, code, kind, message, cause, errors, meta } = current as {
      name?: unknown; code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; errors?: unknown; meta?: { driverAdapterError?: unknown };
    };
    if (name === 'MaxRetriesPerRequestError') return true;
    if (typeof kind === 'string' && ADAPTER_KINDS.has(kind)) return true;
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || STORE_CODES.has(code))) return true;
    if (typeof message === 'string' && REDIS_MESSAGES.some((pattern) => pattern.test(message))) return true;
    queue.push(cause, meta?.driverAdapterError);
    if (Array.isArray(errors)) queue.push(...errors);
  }
  return false;
}
