import type { ListOutcome, ServerEndpoint, ToolListing } from './mcp-connection';
import { untilAborted } from './deadline';

/** Bounds of ToolListCache. */
export interface ToolListCacheOptions {
  /** How long a listing is served before the server is asked again (RUNNER_MCP_TOOL_LIST_TTL_MS). */
  ttlMs: number;
  /** Most listings kept; the oldest goes first. @defaultValue 500 */
  maxEntries?: number;
  /** The clock (tests). @defaultValue Date.now */
  now?: () => number;
}

/**
 * The runner's short-lived cache of what MCP servers list, so that a run is
 * offered a server's tools without opening a session (it opens one at its
 * first call of that server). A listing is not session state, so it may serve
 * other runs — but only under the same key: the workspace, the server's spec
 * and its resolved credentials (ServerEndpoint.listingKey). Misses of one key
 * share one listing request; failures are not kept.
 */
export class ToolListCache {
  private readonly entries = new Map<string, { listing: ToolListing; expiresAt: number }>();
  private readonly pending = new Map<string, Promise<ListOutcome>>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(private readonly options: ToolListCacheOptions) {
    this.maxEntries = options.maxEntries ?? 500;
    this.now = options.now ?? Date.now;
  }

  /** The endpoint's listing: cached, or read from the server (one request for every caller of the key meanwhile). */
  listing(endpoint: ServerEndpoint, signal: AbortSignal): Promise<ListOutcome> {
    const key = endpoint.listingKey;
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > this.now()) return Promise.resolve({ ok: true, listing: cached.listing });
    if (cached) this.entries.delete(key);
    let request = this.pending.get(key);
    if (!request) {
      // Not bound to this run's signal: other runs may wait on it. The connect timeout bounds it.
      request = endpoint.list(new AbortController().signal).then((outcome) => {
        this.pending.delete(key);
        if (outcome.ok) this.store(key, outcome.listing);
        return outcome;
      });
      this.pending.set(key, request);
    }
    return untilAborted(request, signal).catch(() => ({ ok: false, notice: { server: endpoint.server, error: { code: 'connect_cancelled', message: 'the run stopped while the server was listed' } } }));
  }

  private store(key: string, listing: ToolListing): void {
    this.entries.set(key, { listing, expiresAt: this.now() + this.options.ttlMs });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
  }
}
