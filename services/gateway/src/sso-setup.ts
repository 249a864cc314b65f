import { AppError, ErrorCode } from '@switchyard/contracts';
import type { PrismaClient } from '@switchyard/db';
import type { Redis } from '@switchyard/redis';
import { OpenIdSsoClient } from './adapters/openid-sso-client';
import { PrismaSsoIdentityStore } from './adapters/prisma-sso-identity-store';
import { RedisSsoPendingStore } from './adapters/redis-sso-pending-store';
import type { SsoDeps } from './commands/sso-sign-in';
import type { GatewayConfig } from './config';
import type { UiSessionStore } from './auth-ports';
import type { FactFlusher } from './fact-ports';

/**
 * Single sign-on's parts from the operator's OIDC_* settings, or null without OIDC_ISSUER. A
 * half configuration stops the gateway at start (CONFIG_INVALID naming what is missing),
 * before a person meets it at sign-in.
 */
export function ssoFromConfig(
  config: GatewayConfig,
  parts: { prisma: PrismaClient; redis: Redis; sessions: UiSessionStore; outbox: FactFlusher },
): SsoDeps | null {
  if (!config.OIDC_ISSUER) return null;
  const missing = (['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_WORKSPACE', 'OIDC_ROLE_MAP'] as const).filter((name) => config[name] === undefined);
  if (missing.length > 0) throw new AppError(ErrorCode.CONFIG_INVALID, `OIDC_ISSUER is set, so ${missing.join(', ')} must be too`, { missing });
  if (config.OIDC_ISSUER.startsWith('http:') && !config.OIDC_ALLOW_HTTP) {
    throw new AppError(ErrorCode.CONFIG_INVALID, 'OIDC_ISSUER is http: — use https, or set OIDC_ALLOW_HTTP=true for a local provider');
  }
  return {
    client: new OpenIdSsoClient({
      issuer: config.OIDC_ISSUER,
      clientId: config.OIDC_CLIENT_ID!,
      clientSecret: config.OIDC_CLIENT_SECRET!,
      scopes: config.OIDC_SCOPES,
      groupsClaim: config.OIDC_GROUPS_CLAIM,
      allowHttp: config.OIDC_ALLOW_HTTP,
    }),
    pending: new RedisSsoPendingStore(parts.redis, config.REDIS_PREFIX),
    identities: new PrismaSsoIdentityStore(parts.prisma),
    sessions: parts.sessions,
    outbox: parts.outbox,
    workspace: config.OIDC_WORKSPACE!,
    roleMap: config.OIDC_ROLE_MAP!,
    sessionTtlSeconds: config.UI_SESSION_TTL_SECONDS,
  };
}
