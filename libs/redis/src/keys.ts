/**
 * Builds a Redis key from the installation prefix and name parts:
 * `toKey('{sy}', 'dlq', 'ingest')` → `{sy}:dlq:ingest` (the prefix's braces: decision 0061). A part may not contain
 * `:` (it would make two different part lists build the same key), nor be
 * empty.
 */
export function toKey(prefix: string, ...parts: string[]): string {
  for (const part of [prefix, ...parts]) {
    if (part.length === 0 || part.includes(':')) {
      throw new Error(`invalid key part ${JSON.stringify(part)}: parts are non-empty and contain no ':'`);
    }
  }
  return [prefix, ...parts].join(':');
}


/** Where the gateway claims a workspace's idempotency key (base64url: a key may contain ':', which a key part must not). */
export function idempotencyKeyOf(prefix: string, workspaceId: string, idempotencyKey: string): string {
  return toKey(prefix, 'idem', workspaceId, Buffer.from(idempotencyKey).toString('base64url'));
}
