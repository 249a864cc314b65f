import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { createLogger } from '@switchyard/logging';
import { waitFor } from '@switchyard/testing';
import type { Principal } from '../src/auth-ports';
import type { Credential } from '../src/http/auth';
import { CredentialWatch } from '../src/sse/credential-watch';
import { EventStreamSession, serveEventStream } from '../src/sse/event-stream';

/** A response that records what was written; `end` emits `close` like a real one once it finished. */
class FakeResponse extends EventEmitter {
  written = '';
  headers: Record<string, string> | undefined;
  writableEnded = false;
  writeHead(_status: number, headers: Record<string, string>) {
    this.headers = headers;
    return this;
  }
  write(chunk: string) {
    this.written += chunk;
    return true;
  }
  end(chunk?: string) {
    if (chunk) this.written += chunk;
    this.writableEnded = true;
    setImmediate(() => this.emit('close'));
    return this;
  }
}

/** A session that writes one event on start and ends the stream when told to. */
class OneShotSession extends EventStreamSession {
  closes = 0;
  start(): void {
    this.res.write('event: hello\ndata: {}\n\n');
  }
  finish(): void {
    this.end('event: bye\ndata: {}\n\n');
  }
  override close(): void {
    this.closes += 1;
    super.close();
  }
  get isClosed() {
    return this.closed;
  }
}

const log = createLogger({ service: 'test', level: 'silent' });
const alice: Credential = { hash: 'h-alice', agent: false };
const principal: Principal = { tokenId: 't-alice', userId: 'u', workspaceId: 'w', workspaceSlug: 'acme', role: 'viewer' };

function serve(options: { heartbeatMs?: number; active?: { value: boolean } } = {}) {
  const active = options.active ?? { value: true };
  const lookups: string[] = [];
  const watch = new CredentialWatch({ recheck: async (c) => (lookups.push(c.hash), active.value ? principal : null), intervalMs: 60_000, log });
  const res = new FakeResponse();
  const session = new OneShotSession({ res: res as unknown as Response, heartbeatMs: options.heartbeatMs ?? 60_000, log });
  let subscribed = 0;
  serveEventStream(res as unknown as Response, session, {
    preamble: 'retry: 2000\nid: 7\n\n',
    watch,
    credential: alice,
    tokenId: principal.tokenId,
    subscribe: () => {
      subscribed += 1;
      return () => (subscribed -= 1);
    },
  });
  return { res, session, watch, lookups, active, subscribed: () => subscribed };
}

/**
 * The one mechanism behind the fact, observation and eval streams: headers
 * and preamble, heartbeat, the end on revocation, and the release of the
 * subscription, the credential watch and the session whatever ends the stream.
 */
describe('serveEventStream', () => {
  it('writes the SSE headers, the preamble, then the session\'s events', () => {
    const { res, session } = serve();
    expect(res.headers?.['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers?.['x-accel-buffering']).toBe('no');
    expect(res.written).toBe('retry: 2000\nid: 7\n\nevent: hello\ndata: {}\n\n');
    session.close();
  });

  it('writes heartbeat comments until the session closes', async () => {
    const { res, session } = serve({ heartbeatMs: 5 });
    await waitFor(async () => res.written.includes(': heartbeat\n\n'), { timeoutMs: 2000, intervalMs: 5, what: 'a heartbeat' });
    session.close();
    const after = res.written;
    // A stream still open, beating at the same interval, is the clock: several of its beats go by.
    const open = serve({ heartbeatMs: 5 });
    await waitFor(async () => open.res.written.split(': heartbeat').length > 6 || undefined, { timeoutMs: 2000, intervalMs: 5, what: 'beats of the open stream' });
    open.session.close();
    expect(res.written).toBe(after);
  });

  it('ends the stream with an UNAUTHENTICATED error once the token stops working, and releases everything', async () => {
    const { res, session, watch, lookups, active, subscribed } = serve();
    active.value = false;
    await watch.sweep();
    expect(res.writableEnded).toBe(true);
    expect(res.written).toMatch(/event: error\ndata: \{"code":"UNAUTHENTICATED",/);
    expect(session.isClosed).toBe(true);
    await waitFor(async () => subscribed() === 0, { timeoutMs: 2000, intervalMs: 5, what: 'unsubscribed' });
    // No longer watched: a later sweep looks nothing up.
    lookups.length = 0;
    await watch.sweep();
    expect(lookups).toEqual([]);
  });

  it('releases the watch and the subscription when the session ends the stream itself', async () => {
    const { res, session, watch, lookups, subscribed } = serve();
    session.finish();
    expect(res.written.endsWith('event: bye\ndata: {}\n\n')).toBe(true);
    await waitFor(async () => subscribed() === 0, { timeoutMs: 2000, intervalMs: 5, what: 'unsubscribed' });
    await watch.sweep();
    expect(lookups).toEqual([]);
  });

  it('closes the session when the client leaves', () => {
    const { res, session, subscribed } = serve();
    res.emit('close');
    expect(session.isClosed).toBe(true);
    expect(subscribed()).toBe(0);
  });
});
