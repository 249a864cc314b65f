import { Agent, fetch as undiciFetch } from 'undici';

/** Options of createModelHttpPool. */
export interface ModelHttpPoolOptions {
  /** Connections to one host (origin) at most; a request beyond them waits for a free one. */
  connectionsPerHost: number;
  /**
   * How long an idle connection is kept when the server's answer gives no
   * `Keep-Alive: timeout` hint. @defaultValue IDLE_KEEP_ALIVE_MS
   */
  keepAliveMs?: number;
}

/**
 * How long an idle connection is kept when the server did not say (no
 * `Keep-Alive: timeout` on its answer — Node's server omits it whenever a
 * handler sets `Connection` itself, as event streams do): under the 5 s that
 * Node's and many servers' idle timeout defaults to. Kept longer, the pool
 * would hand a request a socket the server was closing at that moment, and
 * the request fails `Connection error.` (issue 31's long bench: 1–6 turns in
 * 2,000). A server that gives its timeout is believed, less undici's 2 s
 * margin, up to MAX_KEEP_ALIVE_MS.
 */
export const IDLE_KEEP_ALIVE_MS = 4_000;
/** Longest a server's `Keep-Alive: timeout` hint keeps an idle connection. */
const MAX_KEEP_ALIVE_MS = 30_000;

/** The sockets every run of a process shares to reach model endpoints, and the fetch that uses them. */
export interface ModelHttpPool {
  /** undici's fetch: the one its dispatcher is made for (Node's own fetch bundles another undici). */
  fetch: typeof undiciFetch;
  dispatcher: Agent;
  /** Closes the idle connections and waits for the busy ones. */
  close(): Promise<void>;
}

/**
 * One pool of connections per host for the whole process (decision 0053): a
 * run waiting on a model holds a connection only while its request is out,
 * and the next run's request reuses it. HTTP/2 is taken where the provider
 * offers it over TLS, many requests then sharing one connection.
 */
export function createModelHttpPool(options: ModelHttpPoolOptions): ModelHttpPool {
  const dispatcher = new Agent({
    connections: options.connectionsPerHost,
    allowH2: true,
    keepAliveTimeout: options.keepAliveMs ?? IDLE_KEEP_ALIVE_MS,
    keepAliveMaxTimeout: MAX_KEEP_ALIVE_MS,
  });
  return { fetch: undiciFetch, dispatcher, close: () => dispatcher.close() };
}

/** Connections per host of the pool used when none is given (a model made outside a runner: tests, tools). */
const DEFAULT_CONNECTIONS_PER_HOST = 256;
let fallback: ModelHttpPool | undefined;

/** The process's pool when the caller gave none, made at its first use. */
export function defaultModelHttpPool(): ModelHttpPool {
  fallback ??= createModelHttpPool({ connectionsPerHost: DEFAULT_CONNECTIONS_PER_HOST });
  return fallback;
}
