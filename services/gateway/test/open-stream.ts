/** An SSE response read to its end: what it sent, and a promise of the end. */
export interface OpenStream {
  status: number;
  text: () => string;
  ended: Promise<void>;
  close: () => void;
}

/**
 * Why this exists: the SSE client in libs/testing collects events but does
 * not tell when the server ended the response, which is what a revocation
 * must do. This reads the body to its end.
 */
export async function openStream(url: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  let text = '';
  const ended = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
  })();
  ended.catch(() => undefined);
  return { status: response.status, text: () => text, ended, close: () => controller.abort() };
}

/** Resolves true when `promise` settles within `ms`. */
export const within = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true, () => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

