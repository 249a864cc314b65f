import { createNodeFetch, createPinnedFetch, type FetchLike, type NodeFetch, type PinnedHost } from '@switchyard/core';

/** Options of McpHttpPool. */
export interface McpHttpPoolOptions {
  /** Sockets to one MCP server host at most; a request beyond them waits for a free one (within the call's timeout). */
  connectionsPerHost: number;
}

/**
 * The sockets every run of a process shares to reach HTTP MCP servers
 * (decision 0053), as the model's calls share theirs (model-http-pool.ts):
 * a run holds a socket only while a request of its session is out, and a
 * host gets at most `connectionsPerHost`, whatever the runs in flight.
 *
 * An agent's server is reached through a fetch pinned to the address its
 * URL check approved (createPinnedFetch), one per checked host and address:
 * a server whose name resolves elsewhere later gets a pool of its own,
 * never a socket of the old address. The platform's own server (trusted,
 * the operator's URL) is reached unpinned.
 *
 * No session opens the optional standing GET stream of Streamable HTTP:
 * the runner takes no message from a server outside the answer to its own
 * request (its client declares no capability a server could ask of it), and
 * over HTTP/1.1 each stream would hold one of the host's sockets for the
 * session's life — with as many sessions as sockets, requests would wait
 * for ever. The GET is answered 405 here, as by a server without the
 * stream, and the SDK's transport goes on without it.
 */
export class McpHttpPool {
  /** Idle sockets are dropped before the servers' own idle timeout (Node's 5 s), as the model pool's are (IDLE_KEEP_ALIVE_MS). */
  private static readonly IDLE_MS = 4_000;
  private readonly pinned = new Map<string, NodeFetch>();
  private trusted: NodeFetch | undefined;

  constructor(private readonly options: McpHttpPoolOptions) {}

  /** The fetch of an agent's server at the address its check approved. */
  pinnedFetch(pin: PinnedHost): FetchLike {
    const key = `${pin.hostname}|${pin.address}`;
    let fetch = this.pinned.get(key);
    if (!fetch) {
      fetch = createPinnedFetch(pin, { maxSocketsPerHost: this.options.connectionsPerHost, idleTimeoutMs: McpHttpPool.IDLE_MS });
      this.pinned.set(key, fetch);
    }
    return withoutStandingStream(fetch.fetch);
  }

  /** The fetch of the platform's own server (no address check: the operator configured it). */
  trustedFetch(): FetchLike {
    this.trusted ??= createNodeFetch({ maxSocketsPerHost: this.options.connectionsPerHost, idleTimeoutMs: McpHttpPool.IDLE_MS });
    return withoutStandingStream(this.trusted.fetch);
  }

  /** Destroys every kept-alive socket. */
  close(): void {
    for (const fetch of this.pinned.values()) fetch.close();
    this.pinned.clear();
    this.trusted?.close();
    this.trusted = undefined;
  }
}

/** See McpHttpPool: a GET (the standing stream) is answered 405 without a request. */
function withoutStandingStream(fetch: FetchLike): FetchLike {
  return (url, init) => ((init?.method ?? 'GET').toUpperCase() === 'GET' ? Promise.resolve(new Response(null, { status: 405 })) : fetch(url, init));
}

/** Sockets per host of the pool used when none is given (tools connected outside a runner: tests, tries). */
const DEFAULT_CONNECTIONS_PER_HOST = 256;
let fallback: McpHttpPool | undefined;

/** The process's pool when the caller gave none, made at its first use. */
export function defaultMcpHttpPool(): McpHttpPool {
  fallback ??= new McpHttpPool({ connectionsPerHost: DEFAULT_CONNECTIONS_PER_HOST });
  return fallback;
}
