import type { Request, RequestHandler, Response } from 'express';
import { AppError, ErrorCode, type Role } from '@switchyard/contracts';
import { hashToken, isAgentToken } from '@switchyard/core';
import type { AgentTokenStore, AuthStore, Principal, UiSessionStore } from '../auth-ports';
import { lowerRole, ROLE_RANK } from '../roles';
import { checkCsrf, sessionCookieOf } from './ui-session-cookie';


/**
 * The highest role an agent token acts with, whatever its creator's: an agent
 * never administers the workspace (tokens, secrets, the kill switch), so a
 * prompt-injected run cannot mint itself a token that outlives it.
 */
export const AGENT_MAX_ROLE: Role = 'member';

const capRole = (role: Role): Role => lowerRole(role, AGENT_MAX_ROLE);

/** Options of Authenticator. */
export interface AuthenticatorOptions {
  store: AuthStore;
  /** How long a resolved token stays cached. @defaultValue 5000 */
  cacheMs?: number;
  /** last_used_at is written at most this often per token. @defaultValue 60000 */
  touchEveryMs?: number;
  /** Where agent tokens (`sya_…`) are looked up; without it they are refused. Never cached. */
  agentTokens?: AgentTokenStore;
  /** Where UI sessions (the `sy_session` cookie) are looked up; without it the cookie is ignored. Never cached. */
  uiSessions?: UiSessionStore;
}

/**
 * Resolves bearer tokens to principals. Tokens are looked up by SHA-256 (the
 * secret is never stored) and cached briefly so that a burst of requests
 * costs one query; `forget` drops a revoked token from this replica at once.
 */
export class Authenticator {
  private readonly cache = new Map<string, { principal: Principal | null; until: number }>();
  private readonly touched = new Map<string, number>();

  constructor(private readonly options: AuthenticatorOptions) {}

  async resolve(secret: string): Promise<Principal | null> {
    const hash = hashToken(secret);
    // Agent tokens are looked up on every request, not cached: the runner
    // revokes one in PostgreSQL when its run ends, which no gateway replica
    // hears about, and it must stop working at once, not a cache period later.
    if (isAgentToken(secret)) return this.resolveAgent(hash);
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached && cached.until > now) return this.touch(cached.principal);
    const principal = await this.options.store.findActiveToken(hash);
    if (this.cache.size > 10_000) this.cache.clear();
    // Never past the token's expiry: the cache must not extend a token's life.
    const expiry = principal?.expiresAt === undefined ? Infinity : Date.parse(principal.expiresAt);
    this.cache.set(hash, { principal, until: Math.min(now + (this.options.cacheMs ?? 5_000), expiry) });
    return this.touch(principal);
  }

  private async resolveAgent(hash: string): Promise<Principal | null> {
    const principal = (await this.options.agentTokens?.findActiveAgentToken(hash)) ?? null;
    if (!principal) return null;
    const capped = { ...principal, role: capRole(principal.role) };
    return principal.shadowOf === undefined ? capped : { ...capped, shadowOf: capRole(principal.shadowOf) };
  }

  /**
   * The principal of a UI session cookie. Looked up on every request, not
   * cached: a sign-out (or its token's revocation) on any replica must refuse
   * the cookie at once.
   */
  async resolveSession(secret: string): Promise<Principal | null> {
    return (await this.options.uiSessions?.findActive(hashToken(secret))) ?? null;
  }

  /**
   * Looks a credential up again in the store, never in the cache: for what
   * outlives a request (an open stream, a ticket), so that a revocation made
   * on any replica is seen. The cache takes the answer too.
   */
  async recheck(credential: Credential): Promise<Principal | null> {
    if (credential.agent) return this.resolveAgent(credential.hash);
    if (credential.session) return (await this.options.uiSessions?.findActive(credential.hash)) ?? null;
    const principal = await this.options.store.findActiveToken(credential.hash);
    this.cache.set(credential.hash, { principal, until: Date.now() + (this.options.cacheMs ?? 5_000) });
    return principal;
  }

  /** Drops every cached entry of a token (after revocation). */
  forget(tokenId: string): void {
    for (const [hash, entry] of this.cache) if (entry.principal?.tokenId === tokenId) this.cache.delete(hash);
  }

  /** Drops every cached token of a person (after their role changed or they were removed). */
  forgetUser(userId: string): void {
    for (const [hash, entry] of this.cache) if (entry.principal?.userId === userId) this.cache.delete(hash);
  }

  private touch(principal: Principal | null): Principal | null {
    if (!principal) return null;
    const now = Date.now();
    if ((this.touched.get(principal.tokenId) ?? 0) + (this.options.touchEveryMs ?? 60_000) <= now) {
      this.touched.set(principal.tokenId, now);
      // Bookkeeping only: a failed write must not fail the request.
      this.options.store.touchToken(principal.tokenId).catch(() => undefined);
    }
    return principal;
  }
}

/** A token as it can be looked up again: its SHA-256 and its kind, never the secret. */
export interface Credential {
  hash: string;
  /** An agent token (`sya_…`), looked up in the agent tokens. */
  agent: boolean;
  /** A UI session cookie, looked up in the UI sessions. */
  session?: boolean;
}

/** The credential of a bearer secret. */
export function credentialOf(secret: string): Credential {
  return { hash: hashToken(secret), agent: isAgentToken(secret) };
}

/** The bearer secret of a request, or undefined. */
export function bearerOf(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * The credential the auth middleware authenticated the request with (bearer
 * token, session cookie or stream ticket), to look up again later.
 */
export function credentialOfRequest(res: Response): Credential {
  const credential = res.locals.credential as Credential | undefined;
  if (!credential) throw new AppError(ErrorCode.UNAUTHENTICATED, 'authentication required');
  return credential;
}

/** The principal the auth middleware put on the response. */
export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (!principal) throw new AppError(ErrorCode.UNAUTHENTICATED, 'authentication required');
  return principal;
}

/**
 * Authenticates `Authorization: Bearer` (401 without a valid one) and checks
 * the token belongs to the workspace in the path (403 otherwise). `resolveOther`
 * lets a route accept another credential (the stream ticket).
 */
export function authenticate(
  authenticator: Authenticator,
  resolveOther?: (req: Request) => Promise<Principal | null>,
): RequestHandler {
  return async (req, res, next) => {
    const principal = await principalFrom(req, authenticator, resolveOther);
    if (principal.workspaceSlug !== req.params.ws) {
      throw new AppError(ErrorCode.WORKSPACE_FORBIDDEN, 'this token belongs to another workspace');
    }
    res.locals.principal = principal;
    next();
  };
}

/**
 * Authenticates `Authorization: Bearer` (401 without a valid one) for a route
 * with no workspace in its path (`/mcp`): the workspace is the token's.
 */
export function authenticateBearer(authenticator: Authenticator): RequestHandler {
  return async (req, res, next) => {
    res.locals.principal = await principalFrom(req, authenticator);
    next();
  };
}

/**
 * The one way a request is authenticated: a bearer token first, else the UI
 * session cookie (then a mutating request must carry the session's CSRF
 * token), else what the route also accepts (a stream ticket). The credential
 * used is kept on `res.locals.credential`.
 */
async function principalFrom(
  req: Request,
  authenticator: Authenticator,
  resolveOther?: (req: Request) => Promise<Principal | null>,
): Promise<Principal> {
  const res = req.res!;
  const secret = bearerOf(req);
  const cookie = secret ? undefined : sessionCookieOf(req);
  let principal: Principal | null = null;
  if (secret) {
    principal = await authenticator.resolve(secret);
    res.locals.credential = credentialOf(secret);
  } else if (cookie) {
    principal = await authenticator.resolveSession(cookie);
    if (principal) checkCsrf(req, cookie);
    res.locals.credential = { hash: hashToken(cookie), agent: false, session: true } satisfies Credential;
  } else if (resolveOther) principal = await resolveOther(req);
  if (!principal) throw new AppError(ErrorCode.UNAUTHENTICATED, 'a valid bearer token or session is required');
  return principal;
}

/** Whether the principal's role is at least `role`. */
export function hasRole(principal: Principal, role: Role): boolean {
  return ROLE_RANK[principal.role] >= ROLE_RANK[role];
}

/** Throws FORBIDDEN unless the principal's role is at least `role`. */
export function assertRole(principal: Principal, role: Role): void {
  if (!hasRole(principal, role)) {
    throw new AppError(ErrorCode.FORBIDDEN, `this action needs the ${role} role`, { required: role, actual: principal.role });
  }
}

/** 403 unless the caller's role is at least `role`. */
export function requireRole(role: Role): RequestHandler {
  return (_req, res, next) => {
    assertRole(principalOf(res), role);
    next();
  };
}
