import { createHmac, randomBytes, randomUUID } from 'node:crypto';

/**
 * Why this exists: the webhook tests act as the senders do — GitHub and a
 * generic HMAC signer — over real HTTP with no platform token, and must sign
 * exactly the bytes they send. These build such requests and read the answer
 * as apiClient does.
 */

/** A fresh signing secret, as `openssl rand -hex 32` makes one. */
export const newWebhookSecret = () => randomBytes(32).toString('hex');

/** The hex HMAC-SHA256 of `raw` under `secret`: what GitHub puts after `sha256=` in X-Hub-Signature-256. */
export const hmacHex = (secret: string, raw: Buffer | string) => createHmac('sha256', secret).update(raw).digest('hex');

/** A delivery's answer: status, parsed body and headers. */
export interface DeliveryResponse {
  status: number;
  body: any;
  headers: Headers;
}

/** POSTs `raw` (sent byte for byte) to a gateway path with these headers and no Authorization. */
export async function deliver(baseUrl: string, path: string, raw: Buffer | string, headers: Record<string, string>): Promise<DeliveryResponse> {
  const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: keep the text.
  }
  return { status: response.status, body, headers: response.headers };
}

/**
 * The headers GitHub sends with a delivery (docs: "Webhook events and
 * payloads", "Validating webhook deliveries"): the event, a delivery GUID,
 * the hook's ids and `X-Hub-Signature-256: sha256=<hex HMAC of the raw body>`.
 */
export function gitHubHeaders(secret: string, raw: Buffer | string, event: string, delivery: string = randomUUID()): Record<string, string> {
  return {
    'user-agent': 'GitHub-Hookshot/044aadd',
    'x-github-event': event,
    'x-github-delivery': delivery,
    'x-github-hook-id': '292430182',
    'x-github-hook-installation-target-type': 'repository',
    'x-github-hook-installation-target-id': '79929171',
    'x-hub-signature': `sha1=${createHmac('sha1', secret).update(raw).digest('hex')}`,
    'x-hub-signature-256': `sha256=${hmacHex(secret, raw)}`,
  };
}

/** A push event's body as GitHub formats it (trimmed), with text that a re-serialization would change. */
export function pushPayload(repository: string, after: string): string {
  return JSON.stringify(
    {
      ref: 'refs/heads/main',
      before: '0'.repeat(40),
      after,
      repository: { id: 79929171, name: repository.split('/')[1], full_name: repository, private: false, owner: { login: repository.split('/')[0] } },
      pusher: { name: 'Zoë', email: 'zoe@example.com' },
      head_commit: { id: after, message: 'Fix the “quotes” \u2014 and a\ttab\n\nbody', timestamp: '2026-12-04T10:00:00+01:00' },
      size: 1,
    },
    null,
    2,
  )
    .replace('"size": 1', '"size": 1.0')
    .replace('"Zoë"', '"Zo\\u00eb"');
}
