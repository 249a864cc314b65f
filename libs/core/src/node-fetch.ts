import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
/** The fetch shape callers hand to clients (the MCP SDK's FetchLike, Mattermost calls, the openai client). */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A host checked by resolveOutboundUrl and the address its connections must use. */
export interface PinnedHost {
  hostname: string;
  address: string;
  family: 4 | 6;
}

/** Options of createPinnedFetch and createNodeFetch. */
export interface NodeFetchOptions {
  /** Sockets to one host at most; a request beyond them waits for a free one. @defaultValue unbounded */
  maxSocketsPerHost?: number;
  /**
   * How long an idle socket is kept for the next request. Keep it under the servers' own idle
   * timeout (Node's is 5 s): a request handed a socket the server is closing fails. @defaultValue until the server closes it
   */
  idleTimeoutMs?: number;
}

/** A fetch on node:http(s), and the sockets it keeps alive. */
export interface NodeFetch {
  fetch: FetchLike;
  /** Destroys the kept-alive sockets. */
  close(): void;
}

/**
 * A fetch (for the MCP client transport, Mattermost calls, model requests)
 * that connects only to the address the URL check approved. The global
 * fetch would resolve the host again, and a DNS answer that changed since
 * the check (rebinding) would reach a private address. TLS still verifies
 * the certificate against the host name. Requests to any other host are
 * refused; the SDK follows redirects itself (same origin only), through this
 * fetch, so they are held to the same pin.
 */
export function createPinnedFetch(pin: PinnedHost, options: NodeFetchOptions = {}): NodeFetch {
  const lookup: LookupFunction = (hostname, options, callback) => {
    if (hostname.replace(/^\[|\]$/g, '').toLowerCase() !== pin.hostname) {
      callback(Object.assign(new Error(`${hostname} is not the checked host`), { code: 'ENOTFOUND' }), '', 0);
    } else if (options.all) {
      (callback as unknown as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, [{ address: pin.address, family: pin.family }]);
    } else {
      callback(null, pin.address, pin.family);
    }
  };
  return nodeFetch((hostname) => (hostname === pin.hostname ? null : `refusing to connect to ${hostname}: only ${pin.hostname} was checked`), options, lookup);
}

/**
 * The same fetch to any host, resolved as usual: for endpoints the operator
 * configured (OPENAI_BASE_URL), which no check vets. Node's global fetch
 * would do, but it runs every request through web streams end to end.
 */
export function createNodeFetch(options: NodeFetchOptions = {}): NodeFetch {
  return nodeFetch(() => null, options);
}

/** A fetch on node:http(s) with kept-alive sockets; `refusal` names why a host may not be reached (null: it may). */
function nodeFetch(refusal: (hostname: string) => string | null, options: NodeFetchOptions, lookup?: LookupFunction): NodeFetch {
  const bound = {
    ...(options.maxSocketsPerHost === undefined ? {} : { maxSockets: options.maxSocketsPerHost }),
    // The agent applies `timeout` to its free sockets: an idle one is destroyed after it.
    ...(options.idleTimeoutMs === undefined ? {} : { timeout: options.idleTimeoutMs }),
  };
  const agents = { http: new http.Agent({ keepAlive: true, ...bound }), https: new https.Agent({ keepAlive: true, ...bound }) };

  const fetch: FetchLike = (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input instanceof URL ? input.href : input);
      const hostname = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
      const refused = refusal(hostname);
      if (refused) return reject(new Error(refused));
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return reject(new Error(`refusing scheme ${url.protocol}`));
      const body = init.body;
      if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) return reject(new Error('only string and byte bodies are supported'));
      const secure = url.protocol === 'https:';
      const request = (secure ? https : http).request(url, {
        method: init.method ?? 'GET',
        headers: Object.fromEntries(new Headers(init.headers).entries()),
        agent: secure ? agents.https : agents.http,
        ...(lookup ? { lookup } : {}),
        signal: init.signal ?? undefined,
      });
      request.on('error', reject);
      request.on('response', (response) => {
        const headers = new Headers();
        for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) headers.append(response.rawHeaders[i]!, response.rawHeaders[i + 1]!);
        const status = response.statusCode ?? 502;
        const empty = init.method === 'HEAD' || status === 204 || status === 304 || response.headers['content-length'] === '0';
        if (empty) response.resume();
        const stream = empty ? null : bodyOf(response);
        resolve(new Response(stream, { status, statusText: response.statusMessage ?? '', headers }));
      });
      request.end(body ?? undefined);
    });

  return {
    fetch,
    close: () => {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/**
 * The response's body as a web stream. A cancel of a body the socket has
 * carried whole (`complete`, read or not: the MCP SDK cancels the empty body
 * of every 202) reads the rest and keeps the socket for the next request;
 * Readable.toWeb would destroy it, and each session would open new
 * connections. A cancel mid-body still destroys the response.
 */
function bodyOf(response: http.IncomingMessage): ReadableStream<Uint8Array> {
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      response.on('data', (chunk: Buffer) => {
        if (cancelled) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) response.pause();
      });
      response.once('end', () => cancelled || controller.close());
      response.once('error', (error) => cancelled || controller.error(error));
    },
    pull() {
      response.resume();
    },
    cancel() {
      cancelled = true;
      if (response.complete) response.resume();
      else response.destroy();
    },
  });
}
