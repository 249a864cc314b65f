import { createHash, randomBytes } from 'node:crypto';

/** Prefix of every Switchyard API token, so leaked tokens are recognisable by scanners. */
export const TOKEN_PREFIX = 'sy_';

/** A new secret API token: `sy_` and 43 url-safe characters (256 bits). */
export function newTokenSecret(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** What is stored for a token: never the secret, only its SHA-256. */
export function hashToken(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** The visible part of a token, shown in listings so a person can tell tokens apart. */
export function tokenPrefix(secret: string): string {
  return secret.slice(0, TOKEN_PREFIX.length + 6);
}
