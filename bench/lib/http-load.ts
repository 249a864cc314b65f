import http from 'node:http';

/**
 * A light HTTP load generator on node:http with keep-alive sockets: the
 * generator shares the machine's 2 cores with what it measures, so it must
 * cost far less per request than fetch does.
 */
export class HttpLoad {
  private readonly agent: http.Agent;
  private readonly url: URL;

  constructor(baseUrl: string, private readonly headers: Record<string, string>, sockets: number) {
    this.url = new URL(baseUrl);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  }

  /**
   * POSTs a JSON body; resolves with the status and the response text. A
   * keep-alive socket the server closed just as it was reused fails with
   * ECONNRESET before the request reached the server: sent again, once, as
   * Node's documentation advises (`req.reusedSocket`).
   */
  post(path: string, body: string, resend = true): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.url.hostname,
          port: this.url.port,
          path,
          method: 'POST',
          agent: this.agent,
          headers: { ...this.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (resend && req.reusedSocket && error.code === 'ECONNRESET') resolve(this.post(path, body, false));
        else reject(error);
      });
      req.end(body);
    });
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
  async openLoop(perSecond: number, total: number, path: string, body: (i: number) => string, check: (status: number) => void): Promise<void> {
    const started = performance.now();
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / perSecond;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      inflight.push(this.post(path, body(i)).then((r) => check(r.status)));
    }
    await Promise.all(inflight);
  }

  close(): void {
    this.agent.destroy();
  }
}
