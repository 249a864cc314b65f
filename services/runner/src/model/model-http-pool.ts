import { Agent, fetch as undiciFetch } from 'undici';

/** Options of createModelHttpPool. */
export interface ModelHttpPoolOptions {
  /** Connections to one host (origin) at most; a request beyond them waits for a free one. */
  connectionsPerHost: number;
  /** How long an idle connection is kept for the next request. @defaultValue 30000 */
  keepAliveMs?: number;
}

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
  const keepAlive = options.keepAliveMs ?? 30_000;
  const dispatcher = new Agent({ connections: options.connectionsPerHost, allowH2: true, keepAliveTimeout: keepAlive, keepAliveMaxTimeout: keepAlive });
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
