import { AppError, ErrorCode, MAX_TOKEN_TTL_SECONDS, type CreateTokenRequest, type TokenInfo } from '@switchyard/contracts';
import type { AuthStore, Principal } from '../ports';

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

/** Creates an API token acting as the caller, in the caller's workspace; its secret is returned once. */
export async function createToken(
  store: Pick<AuthStore, 'createToken'>,
  principal: Principal,
  body: CreateTokenRequest,
): Promise<TokenInfo & { token: string }> {
  const { info, secret } = await store.createToken({
    workspaceId: principal.workspaceId,
    userId: principal.userId,
    name: body.name,
    role: body.role,
    expiresAt: tokenExpiry(body, new Date()),
  });
  return { ...info, token: secret };
}
