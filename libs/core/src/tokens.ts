import { createHash, randomBytes } from 'node:crypto';

/** Prefix of every Switchyard API token, so leaked tokens are recognisable by scanners. */
export const TOKEN_PREFIX = 'sy_';

/** A new secret API token: `sy_` and 43 url-safe characters (256 bits). */
export function newTokenSecret(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * Prefix of every agent token (minted by the runner for one run), so an agent
 * token in a log is told apart from a person's at a glance, and the gateway
 * knows which table to look it up in.
 */
export const AGENT_TOKEN_PREFIX = 'sya_';

/** A new secret agent token: `sya_` and 43 url-safe characters (256 bits). */
export function newAgentTokenSecret(): string {
  return AGENT_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** Prefix of the secret of an invitation or sign-in link (decision 0042): never a bearer token. */
export const ACCESS_LINK_PREFIX = 'syl_';

/** A new secret for a one-time link: `syl_` and 43 url-safe characters (256 bits). */
export function newAccessLinkSecret(): string {
  return ACCESS_LINK_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * A one-time link of the web UI: `base` (PUBLIC_URL, or the gateway's own URL) + `path` +
 * `#secret`. The secret is the fragment, which browsers never send to a server.
 */
export function accessLinkUrl(base: string, path: string, secret: string): string {
  return `${base.replace(/\/+$/, '')}${path}#${secret}`;
}

/** Whether a bearer secret is an agent token (by its prefix; validity is the store's business). */
export function isAgentToken(secret: string): boolean {
  return secret.startsWith(AGENT_TOKEN_PREFIX);
}

/** What is stored for a token: never the secret, only its SHA-256. */
export function hashToken(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** The visible part of a token, shown in listings so a person can tell tokens apart. */
export function tokenPrefix(secret: string): string {
  return secret.slice(0, TOKEN_PREFIX.length + 6);
}
