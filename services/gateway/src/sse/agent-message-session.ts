import type { Response } from 'express';
import type { AgentMessageObservation } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';

/** Options of AgentMessageSession. */
export interface AgentMessageSessionOptions {
  res: Response;
  workspaceId: string;
  /** Observations after a seq, in order (the store's listAfter). */
  listAfter: (workspaceId: string, since: number, limit: number) => Promise<AgentMessageObservation[]>;
  /** The last seq the client has (Last-Event-ID or `since`), or the workspace's last seq for a fresh client. */
  lastSeq: number;
  /** AGENT_MESSAGE_STREAM_POLL_MS. */
  pollMs: number;
  heartbeatMs: number;
  log: Logger;
}

const PAGE = 500;

/**
 * The server-to-client projection of observations (decision 0047): each
 * observation is sent once, in seq order, with its seq as the SSE id. Seqs are
 * dense and commit in order (the cursor row), so reading `seq > lastSeq` from
 * PostgreSQL never skips one, and a client that reconnects with Last-Event-ID
 * resumes exactly — on any replica, after any restart. PostgreSQL is the only
 * source: there is no second live channel to reconcile.
 */
export class AgentMessageSession {
  private lastSeq: number;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private reading = false;
  /** A wake came while a read was under way: read again right after it. */
  private again = false;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly options: AgentMessageSessionOptions) {
    this.lastSeq = options.lastSeq;
    this.heartbeat = setInterval(() => options.res.write(': heartbeat\n\n'), options.heartbeatMs);
  }

  start(): void {
    void this.tick();
  }

  /** A new observation in the workspace (ObservationSignal): read now rather than at the next poll. */
  wake(): void {
    if (this.closed) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    void this.tick();
  }

  close(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.timer);
  }

  private async tick(): Promise<void> {
    this.reading = true;
    this.again = false;
    try {
      for (;;) {
        if (this.closed) return;
        const page = await this.options.listAfter(this.options.workspaceId, this.lastSeq, PAGE);
        if (this.closed) return;
        // One write per page: a write per event costs a syscall each.
        if (page.length > 0) {
          this.options.res.write(page.map((observation) => `id: ${observation.seq}\nevent: observation\ndata: ${JSON.stringify(observation)}\n\n`).join(''));
          this.lastSeq = page.at(-1)!.seq;
        }
        if (page.length < PAGE) break;
      }
    } catch (error) {
      this.options.log.warn({ err: error }, 'agent-message stream read failed; retried');
    }
    this.reading = false;
    if (!this.closed) this.timer = setTimeout(() => void this.tick(), this.again ? 0 : this.options.pollMs);
  }
}
