/** One Server-Sent Event as received. */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** An open SSE connection that collects events until closed. */
export interface SseConnection {
  status: number;
  events: SseEvent[];
  /** Resolves once at least `count` events have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<SseEvent[]>;
  close(): void;
}

/**
 * Why this exists: the SSE guarantees (resume with Last-Event-ID, exactly
 * once, in order) must be checked on the wire. This reads the real HTTP
 * response body with fetch and parses the text/event-stream framing.
 */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const events: SseEvent[] = [];
  const waiters: Array<() => void> = [];
  if (response.ok && response.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event = parseFrame(frame);
            if (event) {
              events.push(event);
              waiters.forEach((wake) => wake());
            }
          }
        }
      } catch {
        // Aborted by close(): stop reading.
      }
    })();
  }
  return {
    status: response.status,
    events,
    waitFor: (count, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (events.length >= count) {
            clearTimeout(timer);
            resolve(events);
          }
        };
        const timer = setTimeout(() => reject(new Error(`only ${events.length} of ${count} SSE events arrived`)), timeoutMs);
        waiters.push(check);
        check();
      }),
    close: () => controller.abort(),
  };
}

function parseFrame(frame: string): SseEvent | undefined {
  const event: SseEvent = { data: '' };
  let hasData = false;
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') event.id = value;
    else if (field === 'event') event.event = value;
    else if (field === 'data') {
      event.data += (hasData ? '\n' : '') + value;
      hasData = true;
    }
  }
  return hasData ? event : undefined;
}
