import type { Role } from '@switchyard/contracts';
import type { AccessLinkUsed } from './access-link-ports';
import type { FactsOf } from './fact-ports';

/** A sign-in begun: where to send the browser, and what the callback must match. */
export interface SsoStart {
  url: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** Who the provider says signed in, its answer verified. */
export interface SsoIdentity {
  issuer: string;
  subject: string;
  /** The person's name as the provider gives it (`name`, else `preferred_username`, else `email`). */
  name: string | null;
  groups: string[];
}

/** The OpenID Connect relying party (an adapter over `openid-client`). */
export interface SsoClient {
  /** An authorization request with a fresh state, nonce and PKCE verifier. */
  start(redirectUri: string): Promise<SsoStart>;
  /** Exchanges the callback's code and verifies the ID token (state, nonce, PKCE, issuer, audience, signature). */
  finish(callbackUrl: URL, pending: Pick<SsoStart, 'state' | 'nonce' | 'codeVerifier'>): Promise<SsoIdentity>;
}

/** Sign-ins begun and not yet finished, for 10 minutes (Redis). */
export interface SsoPendingStore {
  put(start: SsoStart, ttlMs: number): Promise<void>;
  /** The pending sign-in of `state`, removed as it is read (a callback works once); null when none. */
  take(state: string): Promise<Pick<SsoStart, 'state' | 'nonce' | 'codeVerifier'> | null>;
}

/** A single sign-on recorded: the person and their token, whether they joined now, the role they had. */
export interface SsoSignedIn extends AccessLinkUsed {
  joined: boolean;
  /** Their role before this sign-in set it (null: they were not a member). */
  previousRole: Role | null;
}

/** People known by their provider's identity (PostgreSQL). */
export interface SsoIdentityStore {
  /**
   * In one transaction: the user of (issuer, subject) — made on the first sign-in —, their
   * membership of the workspace with `role` (made, or set: the provider's groups decide), a
   * token for the browser session expiring at `tokenExpiresAt`, and the facts. Null when the
   * workspace does not exist.
   */
  signIn(
    input: { workspaceSlug: string; identity: SsoIdentity; name: string; role: Role; tokenExpiresAt: Date },
    facts: FactsOf<SsoSignedIn>,
  ): Promise<SsoSignedIn | null>;
}
