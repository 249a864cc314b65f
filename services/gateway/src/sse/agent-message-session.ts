import type { AgentMessageObservation } from '@switchyard/contracts';
import { EventStreamSession, type EventStreamSessionOptions } from './event-stream';

/** Options of AgentMessageSession. */
export interface AgentMessageSessionOptions extends EventStreamSessionOptions {
  workspaceId: string;
  /** Observations after a seq, in order (the store's listAfter). */
  listAfter: (workspaceId: string, since: number, limit: number) => Promise<AgentMessageObservation[]>;
  /** The last seq the client has (Last-Event-ID or `since`), or the workspace's last seq for a fresh client. */
  lastSeq: number;
  /** AGENT_MESSAGE_STREAM_POLL_MS. */
  pollMs: number;
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
export class AgentMessageSession extends EventStreamSession {
  private lastSeq: number;
  private reading = false;
  /** A wake came while a read was under way: read again right after it. */
  private again = false;

  constructor(private readonly options: AgentMessageSessionOptions) {
    super(options);
    this.lastSeq = options.lastSeq;
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
    this.cancelNextRead();
    void this.tick();
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
          this.res.write(page.map((observation) => `id: ${observation.seq}\nevent: observation\ndata: ${JSON.stringify(observation)}\n\n`).join(''));
          this.lastSeq = page.at(-1)!.seq;
        }
        if (page.length < PAGE) break;
      }
    } catch (error) {
      this.options.log.warn({ err: error }, 'agent-message stream read failed; retried');
    }
    this.reading = false;
    this.readAgainIn(this.again ? 0 : this.options.pollMs, () => this.tick());
  }
}
