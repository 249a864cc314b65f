import { createHmac, timingSafeEqual } from 'node:crypto';

/** GitHub's signature header: `sha256=` and the hex HMAC-SHA256 of the body under the webhook's secret. */
export const GITHUB_SIGNATURE_HEADER = 'x-hub-signature-256';
/** GitHub's delivery id header: a GUID per delivery, the same on a redelivery. */
export const GITHUB_DELIVERY_HEADER = 'x-github-delivery';

/** A signature as sent: `sha256=<64 hex>` (GitHub's form) or the 64 hex digits alone; hex in either case. */
const SIGNATURE_VALUE = /^(?:sha256=)?([0-9a-fA-F]{64})$/;

/** The HMAC-SHA256 of `body` under `secret` (its UTF-8 bytes), as GitHub computes `X-Hub-Signature-256`. */
export function webhookHmac(secret: string, body: Uint8Array): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest();
}

/**
 * Whether `header` (the signature header's one value, undefined when the
 * header is absent or repeated) is the HMAC-SHA256 of `body` under `secret`.
 * The HMAC is computed whatever the header holds, and compared in constant
 * time, so neither a wrong nor a malformed signature answers faster.
 * `requirePrefix` (GitHub) accepts only the `sha256=` form.
 */
export function verifyWebhookSignature(secret: string, body: Uint8Array, header: string | undefined, requirePrefix: boolean): boolean {
  const expected = webhookHmac(secret, body);
  const match = header === undefined ? null : SIGNATURE_VALUE.exec(header.trim());
  const wellFormed = match !== null && (!requirePrefix || header!.trim().startsWith('sha256='));
  // A malformed value is compared as zeros: the same work as a wrong one.
  const given = wellFormed ? Buffer.from(match[1]!, 'hex') : Buffer.alloc(expected.length);
  return timingSafeEqual(given, expected) && wellFormed;
}
