import { z } from 'zod';
import { AppError, ErrorCode } from '@switchyard/contracts';
import { isSecretsKey, SecretBox } from '@switchyard/core';

const KEY_FORMAT = 'must be 32 bytes as base64 or 64 hex characters';

/** Keys as configured: comma-separated, blanks ignored; a bad one fails start-up without being echoed. */
const SecretsKeysSchema = z
  .string()
  .optional()
  .transform((text) => (text ?? '').split(',').map((key) => key.trim()).filter((key) => key.length > 0))
  .refine((keys) => keys.every(isSecretsKey), KEY_FORMAT);

/**
 * The workspace-secrets key variables, for every service that seals or opens
 * secrets (the gateway writes them, the runner reads them):
 * `Schema.extend(SecretsEnvSchema.shape)`.
 */
export const SecretsEnvSchema = z.object({
  /**
   * AES-256-GCM key of workspace secrets: 32 bytes as base64 or 64 hex
   * characters (`openssl rand -base64 32`). Unset or empty: secrets cannot be
   * stored or read (the secrets routes answer 503). `npm start` generates one
   * into `.data/secrets.key` on first run; `docker-compose.yml` requires it.
   * Keep it and back it up: secrets cannot be read without it.
   */
  SECRETS_KEY: SecretsKeysSchema.refine((keys) => keys.length <= 1, 'one key (older ones go in SECRETS_KEY_PREVIOUS)').transform((keys) => keys[0]),
  /** Earlier SECRETS_KEY values, comma-separated: rows they sealed still open after a rotation. @defaultValue none */
  SECRETS_KEY_PREVIOUS: SecretsKeysSchema,
});
export type SecretsEnv = z.infer<typeof SecretsEnvSchema>;

/**
 * The box sealing and opening workspace secrets, or null when SECRETS_KEY is
 * unset. Previous keys without a current key are a misconfiguration:
 * refused before anything starts.
 */
export function secretBoxOf(config: Pick<SecretsEnv, 'SECRETS_KEY' | 'SECRETS_KEY_PREVIOUS'>): SecretBox | null {
  if (config.SECRETS_KEY === undefined) {
    if (config.SECRETS_KEY_PREVIOUS.length > 0) {
      throw new AppError(ErrorCode.CONFIG_INVALID, 'invalid configuration: SECRETS_KEY_PREVIOUS is set but SECRETS_KEY is not');
    }
    return null;
  }
  return new SecretBox({ key: config.SECRETS_KEY, previousKeys: config.SECRETS_KEY_PREVIOUS });
}
