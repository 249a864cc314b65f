import { z } from 'zod';
import { envBoolean, envList } from '@switchyard/config';
import { MAX_MODEL_RATE_PER_MINUTE } from '@switchyard/contracts';
import { ModelPricesSchema } from './prices';

/**
 * The runner's model variables, as a fragment to merge into its env schema
 * (`RunnerEnvSchema.extend(ModelEnvSchema.shape)`). MODEL_PRICES is parsed
 * here, so a bad table stops the runner at start rather than mispricing runs.
 */
export const ModelEnvSchema = z.object({
  /** The OpenAI-compatible endpoint (with `/v1`) for agents without `model.baseUrl`. @defaultValue https://api.openai.com/v1 */
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://api.openai.com/v1'),
  /**
   * The operator's key for agents without `model.apiKeySecret`. Sent only to
   * OPENAI_BASE_URL. An empty value counts as unset. @defaultValue unset
   */
  OPENAI_API_KEY: z
    .string()
    .optional()
    .transform((value) => (value === '' ? undefined : value)),
  /**
   * Let an agent's own `model.baseUrl` be on a private, loopback or link-local address (an
   * OpenAI-compatible server on this machine or the LAN: Ollama, vLLM, llama.cpp, LM Studio);
   * metadata addresses stay refused. OPENAI_BASE_URL (the operator's) is never checked. See
   * docs/models.md. @defaultValue false
   */
  RUNNER_MODEL_ALLOW_PRIVATE: envBoolean.default(false),
  /** Hosts (names or IP literals, comma-separated) an agent's own `model.baseUrl` may use whatever they resolve to. @defaultValue '' */
  RUNNER_MODEL_ALLOWED_HOSTS: envList,
  /** Longest wait for one model answer; a timeout is not retried. @defaultValue 60000 */
  MODEL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
  /** Attempts per model call on 429, 5xx and connection errors, the first included. @defaultValue 4 */
  MODEL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(4),
  /**
   * Ask models for streamed answers (`stream: true`, usage in the last chunk); false for a
   * compatible server that cannot stream. @defaultValue true
   */
  MODEL_STREAM: envBoolean.default(true),
  /**
   * The provider key's model calls a minute, shared by every runner through Redis (decision 0060), for
   * models whose spec sets no `model.rateLimit.requestsPerMinute`. @defaultValue unset (not limited)
   */
  MODEL_REQUESTS_PER_MINUTE: z.coerce.number().int().min(1).max(MAX_MODEL_RATE_PER_MINUTE).optional(),
  /** The same for tokens (prompt and completion) a minute. @defaultValue unset (not limited) */
  MODEL_TOKENS_PER_MINUTE: z.coerce.number().int().min(1).max(MAX_MODEL_RATE_PER_MINUTE).optional(),
  /**
   * The window the per-minute limits are counted over, in ms: 60000 everywhere but in tests, which
   * shrink it to see many windows in seconds. @defaultValue 60000
   */
  MODEL_RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
  /**
   * Added to each window's worth of request spacing: a send its process delays by up to this much
   * cannot push a window over the limit. @defaultValue 500
   */
  MODEL_RATE_LIMIT_MARGIN_MS: z.coerce.number().int().min(0).max(60_000).default(500),
  /** JSON price table merged over the defaults (see prices.ts). @defaultValue unset (the defaults) */
  MODEL_PRICES: z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'MODEL_PRICES is not JSON' });
        return z.NEVER;
      }
    })
    .pipe(ModelPricesSchema)
    .optional(),
});
export type ModelEnv = z.infer<typeof ModelEnvSchema>;
