import type { Fact } from '@switchyard/contracts';
import type { KindMatcher } from '@switchyard/core';
import type { FactReader } from '../fact-ports';
import { EventStreamSession, type EventStreamSessionOptions } from './event-stream';

/** Options of SseSession. */
export interface SseSessionOptions extends EventStreamSessionOptions {
  workspace: { id: string; slug: string };
  reader: FactReader;
  /** Only facts whose kind matches are sent (all are still counted for gaps). */
  matcher?: KindMatcher;
  /** The last seq the client has (Last-Event-ID), or the workspace's last seq for a fresh client. */
  lastSeq: number;
  /** Live facts queued beyond this switch the session to catching up from PostgreSQL. @defaultValue 1000 */
  maxQueued?: number;
  /** A client that lets this many bytes pile up unread is disconnected (it resumes with Last-Event-ID). @defaultValue 8 MiB */
  maxBufferedBytes?: number;
}

const PAGE = 500;

/**
 * One SSE client. Facts go out in seq order, each exactly once: seqs are dense
 * per workspace and commit in order, so a live fact whose seq is past
 * lastSeq + 1 reveals a gap, which is filled from PostgreSQL before it is
 * sent; a fact at or below lastSeq is a duplicate and skipped. Live facts are
 * hints; PostgreSQL is the truth.
 */
export class SseSession extends EventStreamSession {
  private lastSeq: number;
  private chain: Promise<void> = Promise.resolve();
  private queued = 0;
  private overflowed = false;

  constructor(private readonly options: SseSessionOptions) {
    super(options);
    this.lastSeq = options.lastSeq;
  }

  /** Sends everything after lastSeq that is already stored. */
  start(): void {
    this.enqueue(() => this.catchUp());
  }

  /** A live fact from the feed. */
  push(fact: Fact): void {
    if (this.overflowed) return;
    if (this.queued >= (this.options.maxQueued ?? 1000)) {
      // Drop live facts and re-read from PostgreSQL once the queue drains.
      this.overflowed = true;
      this.enqueue(async () => {
        this.overflowed = false;
        await this.catchUp();
      });
      return;
    }
    this.enqueue(() => this.deliver(fact));
  }

  private enqueue(step: () => Promise<void>): void {
    this.queued += 1;
    this.chain = this.chain
      .then(() => (this.closed ? undefined : step()))
      .catch((error: unknown) => {
        this.options.log.warn({ err: error }, 'sse session failed; closing it');
        this.end();
      })
      .finally(() => {
        this.queued -= 1;
      });
  }

  private async deliver(fact: Fact): Promise<void> {
    if (fact.seq <= this.lastSeq) return;
    if (fact.seq > this.lastSeq + 1) await this.fill(fact.seq - 1);
    this.send(fact);
  }

  private async catchUp(): Promise<void> {
    await this.fill(Number.MAX_SAFE_INTEGER);
  }

  /** Sends stored facts with lastSeq < seq ≤ upto, page by page. */
  private async fill(upto: number): Promise<void> {
    for (;;) {
      if (this.closed) return;
      const page = await this.options.reader.listAfter(this.options.workspace, this.lastSeq, { limit: PAGE, uptoSeq: upto });
      for (const fact of page) this.send(fact);
      if (page.length < PAGE) return;
    }
  }

  private send(fact: Fact): void {
    if (this.closed || fact.seq <= this.lastSeq) return;
    this.lastSeq = fact.seq;
    if (this.options.matcher && !this.options.matcher.test(fact.kind)) return;
    this.res.write(`id: ${fact.seq}\nevent: fact\ndata: ${JSON.stringify(fact)}\n\n`);
    if (this.res.writableLength > (this.options.maxBufferedBytes ?? 8 * 1024 * 1024)) {
      this.options.log.warn({ workspace: this.options.workspace.slug }, 'slow sse client disconnected');
      this.end();
    }
  }
}
