import { z } from 'zod';
import { BaseEnvSchema, loadConfig } from '@switchyard/config';
import { AppError, ErrorCode } from '@switchyard/contracts';
import { isSecretsKey, SecretBox } from '@switchyard/core';

const KEY_FORMAT = 'must be 32 bytes as base64 or 64 hex characters';
/** Keys as configured: comma-separated, blanks ignored; a bad one fails start-up without being echoed. */
const SecretsKeysSchema = z
  .string()
  .optional()
  .transform((text) => (text ?? '').split(',').map((key) => key.trim()).filter((key) => key.length > 0))
  .refine((keys) => keys.every(isSecretsKey), KEY_FORMAT);

export const GatewayEnvSchema = BaseEnvSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Requests per second allowed per token (fixed one-second window in Redis). */
  RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).default(2000),
  /** Largest request body accepted, in bytes. */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  /** How long a resolved token is cached in memory; a revocation reaches other replicas within this. */
  TOKEN_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
  /** Lifetime of a single-use SSE stream ticket. */
  STREAM_TICKET_TTL_MS: z.coerce.number().int().min(1000).max(60_000).default(30_000),
  /** Interval of SSE heartbeat comments. */
  SSE_HEARTBEAT_MS: z.coerce.number().int().min(100).default(15_000),
  /** How long Redis remembers an idempotencyKey → id (PostgreSQL remembers for ever). */
  IDEMPOTENCY_TTL_SECONDS: z.coerce.number().int().min(60).default(86_400),
  /**
   * Host names (no port, comma-separated) the `Host` header of a `/mcp` request
   * may carry; any other is refused (DNS-rebinding protection). Put the public
   * name here when the gateway is reached by one.
   */
  GATEWAY_MCP_ALLOWED_HOSTS: z
    .string()
    .default('localhost,127.0.0.1,[::1],gateway')
    .transform((text) => text.split(',').map((host) => host.trim().toLowerCase()).filter((host) => host.length > 0))
    .refine((hosts) => hosts.length > 0, 'at least one host name'),
  /**
   * AES-256-GCM key of workspace secrets (32 bytes, base64 or hex). Unset or
   * empty: the secrets routes answer 503. `npm start` generates one into
   * `.data/secrets.key` on first run.
   */
  SECRETS_KEY: SecretsKeysSchema.refine((keys) => keys.length <= 1, 'one key (older ones go in SECRETS_KEY_PREVIOUS)').transform((keys) => keys[0]),
  /** Earlier SECRETS_KEY values, comma-separated: rows they sealed still open after a rotation. @defaultValue none */
  SECRETS_KEY_PREVIOUS: SecretsKeysSchema,
});
export type GatewayConfig = z.infer<typeof GatewayEnvSchema>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(GatewayEnvSchema, env);
}

/**
 * The box sealing workspace secrets, or null when SECRETS_KEY is unset (the
 * secrets routes then answer 503). Previous keys without a current key are a
 * misconfiguration: refused before anything starts.
 */
export function secretBoxOf(config: Pick<GatewayConfig, 'SECRETS_KEY' | 'SECRETS_KEY_PREVIOUS'>): SecretBox | null {
  if (config.SECRETS_KEY === undefined) {
    if (config.SECRETS_KEY_PREVIOUS.length > 0) {
      throw new AppError(ErrorCode.CONFIG_INVALID, 'invalid configuration: SECRETS_KEY_PREVIOUS is set but SECRETS_KEY is not');
    }
    return null;
  }
  return new SecretBox({ key: config.SECRETS_KEY, previousKeys: config.SECRETS_KEY_PREVIOUS });
}
