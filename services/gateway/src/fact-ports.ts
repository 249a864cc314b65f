import type { AcceptOptions, IngestResult } from '@switchyard/redis';
import type { Fact, IngestItem } from '@switchyard/contracts';

/** Reads facts (the event-log writes them). */
export interface FactReader {
  /** Facts of a workspace with seq > afterSeq (and ≤ uptoSeq), in seq order. */
  listAfter(
    workspace: { id: string; slug: string },
    afterSeq: number,
    options: { kindGlob?: string; limit: number; uptoSeq?: number },
  ): Promise<Fact[]>;
  /** Facts of a workspace with afterSeq < seq < beforeSeq (beforeSeq absent: no upper bound), newest first. */
  listBefore(workspace: { id: string; slug: string }, beforeSeq: number | undefined, options: { kindGlob?: string; limit: number; afterSeq?: number }): Promise<Fact[]>;
  get(workspace: { id: string; slug: string }, id: string): Promise<Fact | null>;
  /** The last seq handed out in the workspace (0 when none). */
  lastSeq(workspaceId: string): Promise<number>;
  /** The seq through which retention purged the workspace's facts (0 when none was): decision 0041. */
  purgedThrough(workspaceId: string): Promise<number>;
  /** Facts already stored under these idempotency keys, by key. */
  findByIdempotencyKeys(workspace: { id: string; slug: string }, keys: readonly string[]): Promise<Map<string, Fact>>;
}

/** Accepting facts into `ingest` (implemented by RedisIngestWriter in @switchyard/redis). */
export interface IngestWriter {
  /**
   * Appends the facts atomically with their idempotency claims; per item,
   * either `accepted` (its own id) or `duplicate` (the id an earlier request
   * claimed the key with).
   */
  accept(items: readonly IngestItem[], options?: AcceptOptions): Promise<IngestResult[]>;
}

/**
 * Relays facts just written to the outbox, with every earlier one, before the
 * request that made them answers (decision 0024): the client's next fact then
 * comes after them. Never rejects: what it cannot relay, the event-log's relay moves.
 */
export interface FactFlusher {
  flush(factIds: readonly string[]): Promise<void>;
}

/**
 * The facts a change announces, given its result: the command decides them,
 * the store writes them in the change's transaction (the outbox, decision 0024).
 */
export type FactsOf<T> = (result: T) => IngestItem[];
