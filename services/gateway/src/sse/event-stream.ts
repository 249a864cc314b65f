import type { Response } from 'express';
import { ErrorCode } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import type { Credential } from '../http/auth';
import type { CredentialWatch } from './credential-watch';

/** The headers of every Server-Sent Events answer: proxies (nginx) must neither buffer nor transform it. */
const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

/** The last frame of a stream whose token stopped working. */
const REVOKED_FRAME = `event: error\ndata: ${JSON.stringify({ code: ErrorCode.UNAUTHENTICATED, message: 'the token behind this stream was revoked, expired or its run ended' })}\n\n`;

/**
 * Writes a comment frame every `intervalMs` so that proxies do not close a
 * quiet stream as idle; returns the function that stops it.
 */
export function startHeartbeat(res: Pick<Response, 'write'>, intervalMs: number): () => void {
  const timer = setInterval(() => res.write(': heartbeat\n\n'), intervalMs);
  return () => clearInterval(timer);
}

/** What every SSE session is given. */
export interface EventStreamSessionOptions {
  /** The response the session writes its events to. */
  res: Response;
  /** Interval of heartbeat comments (SSE_HEARTBEAT_MS). */
  heartbeatMs: number;
  /** Where the session reports failed reads. */
  log: Logger;
}

/**
 * What every SSE session of the gateway shares: the heartbeat from
 * construction until close, the `closed` flag its reads check, and ending the
 * response from the server's side, and a polling session's next read. A
 * subclass writes its events in `start`.
 */
export abstract class EventStreamSession {
  /** Set once the session stopped (client left, token revoked, stream ended): nothing more is written. */
  protected closed = false;
  private readonly stopHeartbeat: () => void;
  private nextRead: NodeJS.Timeout | undefined;

  protected readonly res: Response;

  constructor({ res, heartbeatMs }: EventStreamSessionOptions) {
    this.res = res;
    this.stopHeartbeat = startHeartbeat(res, heartbeatMs);
  }

  /** Begins sending events. */
  abstract start(): void;

  /** Stops the session; idempotent. Does not end the response. */
  close(): void {
    this.closed = true;
    this.stopHeartbeat();
    this.cancelNextRead();
  }

  /** A polling session schedules its next `read` in `ms`; nothing once it closed. */
  protected readAgainIn(ms: number, read: () => Promise<void>): void {
    if (!this.closed) this.nextRead = setTimeout(() => void read(), ms);
  }

  /** Drops the scheduled read (the session reads now instead, or closed). */
  protected cancelNextRead(): void {
    clearTimeout(this.nextRead);
  }

  /** Stops the session and ends the response, after `lastFrames` if given. */
  protected end(lastFrames?: string): void {
    this.close();
    if (!this.res.writableEnded) this.res.end(lastFrames);
  }
}

/** Options of serveEventStream. */
export interface ServeEventStreamOptions {
  /** Written right after the headers: `retry:` and, for a resumable stream, the id a client that reconnects before its first event resumes from. */
  preamble: string;
  /** The replica's watch of open streams' credentials (STREAM_AUTH_RECHECK_MS). */
  watch: CredentialWatch;
  /** The credential the stream was opened with, and the token it stood for then. */
  credential: Credential;
  tokenId: string;
  /** Subscribes the session to its live hints; returns the unsubscribe. @defaultValue none */
  subscribe?: () => () => void;
}

/**
 * Answers a request with `session` as Server-Sent Events: the headers and
 * preamble, then the session's events until the client leaves or the session
 * ends the stream; once the token behind it stops working (revoked, expired,
 * its run ended: on every replica within the recheck interval) the stream ends
 * with an `error` event of code UNAUTHENTICATED. Whatever ends it, the
 * subscription, the watch and the session are released once.
 */
export function serveEventStream(res: Response, session: EventStreamSession, options: ServeEventStreamOptions): void {
  res.writeHead(200, EVENT_STREAM_HEADERS);
  res.write(options.preamble);
  const unsubscribe = options.subscribe?.();
  const unwatch = options.watch.watch(options.credential, options.tokenId, () => {
    session.close();
    if (!res.writableEnded) res.end(REVOKED_FRAME);
  });
  session.start();
  // The response's close, not the request's: it comes whether the client left or the server ended the stream.
  res.on('close', () => {
    unsubscribe?.();
    unwatch();
    session.close();
  });
}
