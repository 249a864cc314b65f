import net from 'node:net';

/** A request on its way: what was sent (to send it again) and who waits for the answer. */
interface Pending {
  bytes: Buffer;
  resend: boolean;
  resolve: (response: { status: number; text: string }) => void;
  reject: (error: Error) => void;
}

/**
 * One keep-alive HTTP/1.1 connection, one request at a time. It reads only
 * what a load generator needs of a response: the status, and the body by its
 * `Content-Length` (the gateway and the bare server answer JSON with one).
 */
class Connection {
  private readonly socket: net.Socket;
  private buffered: Buffer = Buffer.alloc(0);
  private inFlight: Pending | undefined;
  /** Whether a response arrived on this socket (a reset after one means the server closed an idle socket). */
  private reused = false;
  closed = false;

  constructor(host: string, port: number, private readonly onIdle: (connection: Connection) => void, private readonly onClosed: (connection: Connection, unanswered?: Pending) => void) {
    this.socket = net.connect({ host, port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => {
      this.closed = true;
      const unanswered = this.inFlight;
      this.inFlight = undefined;
      const resend = unanswered && this.reused && unanswered.resend ? unanswered : undefined;
      this.onClosed(this, resend);
      if (unanswered && !resend) unanswered.reject(new Error('connection closed before the response'));
    });
  }

  send(pending: Pending): void {
    this.inFlight = pending;
    this.socket.write(pending.bytes);
  }

  destroy(): void {
    this.socket.destroy();
  }

  private read(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const headEnd = this.buffered.indexOf('\r\n\r\n');
    if (headEnd < 0) return;
    const head = this.buffered.subarray(0, headEnd).toString('latin1');
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (this.buffered.length < headEnd + 4 + length) return;
    const text = this.buffered.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
    this.buffered = this.buffered.subarray(headEnd + 4 + length);
    const pending = this.inFlight!;
    this.inFlight = undefined;
    this.reused = true;
    pending.resolve({ status: Number(head.slice(9, 12)), text });
    this.onIdle(this);
  }
}

/**
 * A load generator on raw keep-alive sockets. It shares the machine's cores
 * with what it measures, so it must cost as little per request as it can:
 * the request's head is built once per path, and a response is read for its
 * status and length only (node:http's client took about 14 % of a core at
 * 200 requests/s in bench:match, which left that much less to the platform).
 * A request that finds every socket busy waits for one; at most `sockets` are
 * open. A keep-alive socket the server closed just as it was reused loses its
 * request before the server read it: sent again, once.
 */
export class HttpLoad {
  private readonly url: URL;
  private readonly heads = new Map<string, string>();
  private readonly idle: Connection[] = [];
  private readonly waiting: Pending[] = [];
  private closing = false;
  /** Every open connection, idle or busy. */
  private readonly all = new Set<Connection>();

  constructor(baseUrl: string, private readonly headers: Record<string, string>, private readonly sockets: number) {
    this.url = new URL(baseUrl);
  }

  /** POSTs a JSON body; resolves with the status and the response text. */
  post(path: string, body: string): Promise<{ status: number; text: string }> {
    let head = this.heads.get(path);
    if (head === undefined) {
      const lines = [`POST ${path} HTTP/1.1`, `host: ${this.url.host}`, 'content-type: application/json', ...Object.entries(this.headers).map(([name, value]) => `${name}: ${value}`)];
      head = `${lines.join('\r\n')}\r\ncontent-length: `;
      this.heads.set(path, head);
    }
    const bytes = Buffer.from(`${head}${Buffer.byteLength(body)}\r\n\r\n${body}`);
    return new Promise((resolve, reject) => this.dispatch({ bytes, resend: true, resolve, reject }));
  }

  /** `clients` loops each posting bodies from `next()` until it returns undefined; returns elapsed ms. */
  async closedLoop(clients: number, path: string, next: () => string | undefined, check: (status: number) => void): Promise<number> {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        for (let body = next(); body !== undefined; body = next()) check((await this.post(path, body)).status);
      }),
    );
    return performance.now() - started;
  }

  /** Sends `total` requests at `perSecond`, on schedule whatever the responses do (open loop). */
  async openLoop(perSecond: number, total: number, path: string, body: (i: number) => string, check: (status: number, i: number) => void): Promise<void> {
    const started = performance.now();
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / perSecond;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      inflight.push(this.post(path, body(i)).then((r) => check(r.status, i)));
    }
    await Promise.all(inflight);
  }

  /** Connections open now, idle or busy (one the server closed is gone once its close was seen). */
  get openConnections(): number {
    return this.all.size;
  }

  close(): void {
    this.closing = true;
    for (const connection of this.all) connection.destroy();
    for (const pending of this.waiting.splice(0)) pending.reject(new Error('load closed'));
  }

  private dispatch(pending: Pending): void {
    if (this.closing) return pending.reject(new Error('load closed'));
    let connection = this.idle.pop();
    while (connection?.closed) connection = this.idle.pop();
    if (connection) return connection.send(pending);
    if (this.all.size < this.sockets) {
      const fresh = new Connection(this.url.hostname, Number(this.url.port), (c) => this.release(c), (c, unanswered) => this.lost(c, unanswered));
      this.all.add(fresh);
      return fresh.send(pending);
    }
    this.waiting.push(pending);
  }

  private release(connection: Connection): void {
    const next = this.waiting.shift();
    if (next) connection.send(next);
    else this.idle.push(connection);
  }

  private lost(connection: Connection, unanswered?: Pending): void {
    this.all.delete(connection);
    if (unanswered) this.dispatch({ ...unanswered, resend: false });
    else {
      const next = this.closing ? undefined : this.waiting.shift();
      if (next) this.dispatch(next);
    }
  }
}
