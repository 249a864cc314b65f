import { AppError, ErrorCode, MAX_TOKEN_TTL_SECONDS, TOKEN_FACT_KINDS, type CreateTokenRequest, type TokenInfo } from '@switchyard/contracts';
import { tokenFact } from '@switchyard/core';
import { ChangeFacts, namedAuthorOf, type UserNameLookup } from '../audited-change';
import type { AuthStore, Principal } from '../auth-ports';
import type { FactFlusher } from '../fact-ports';

/** What the token commands need. */
export interface TokenCommandDeps {
  store: Pick<AuthStore, 'createToken' | 'revokeToken'>;
  /** Relays `token.*` facts before the answer (the audit trail reads them at once). */
  outbox: FactFlusher;
  /** Names the person on the facts' actor. */
  userName: UserNameLookup;
}

/**
 * When a token asked for with this body expires: `ttlSeconds` from `now`, or
 * `expiresAt`, which must lie in the future and within MAX_TOKEN_TTL_SECONDS
 * (a bound the schema cannot check without a clock). Null: never.
 */
export function tokenExpiry(body: Pick<CreateTokenRequest, 'expiresAt' | 'ttlSeconds'>, now: Date): Date | null {
  if (body.ttlSeconds !== undefined) return new Date(now.getTime() + body.ttlSeconds * 1000);
  if (body.expiresAt === undefined) return null;
  const expiresAt = new Date(body.expiresAt);
  const ahead = expiresAt.getTime() - now.getTime();
  if (ahead <= 0 || ahead > MAX_TOKEN_TTL_SECONDS * 1000) {
    throw new AppError(ErrorCode.VALIDATION_FAILED, 'invalid body', [
      { code: 'custom', path: ['expiresAt'], message: `expiresAt must be in the future and at most ${MAX_TOKEN_TTL_SECONDS} seconds ahead` },
    ]);
  }
  return expiresAt;
}

/**
 * Creates an API token acting as the caller, in the caller's workspace, with
 * its `token.created` fact; its secret is returned once (never in the fact).
 */
export async function createToken(deps: TokenCommandDeps, principal: Principal, body: CreateTokenRequest, correlationId: string): Promise<TokenInfo & { token: string }> {
  const expiresAt = tokenExpiry(body, new Date());
  const author = await namedAuthorOf(principal, deps.userName);
  const facts = new ChangeFacts(correlationId);
  const { info, secret } = await deps.store.createToken(
    { workspaceId: principal.workspaceId, userId: principal.userId, name: body.name, role: body.role, expiresAt },
    (token) => facts.record(tokenFact(author, TOKEN_FACT_KINDS.created, token)),
  );
  await deps.outbox.flush(facts.ids);
  return { ...info, token: secret };
}

/**
 * Revokes a token of the caller's workspace with its `token.revoked` fact;
 * revoking a revoked token again succeeds and records nothing. TOKEN_NOT_FOUND
 * when the workspace has no such token.
 */
export async function revokeToken(deps: TokenCommandDeps, principal: Principal, tokenId: string, correlationId: string): Promise<void> {
  const author = await namedAuthorOf(principal, deps.userName);
  const facts = new ChangeFacts(correlationId);
  const found = await deps.store.revokeToken(principal.workspaceId, tokenId, (token) => facts.record(tokenFact(author, TOKEN_FACT_KINDS.revoked, token)));
  if (!found) throw new AppError(ErrorCode.TOKEN_NOT_FOUND, 'no such token in this workspace', { id: tokenId });
  await deps.outbox.flush(facts.ids);
}
