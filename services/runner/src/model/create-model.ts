import { type AgentSpec, type Fact, MODEL_ERROR_CODES } from '@switchyard/contracts';
import { createPinnedFetch, type PinnedHost } from '@switchyard/core';
import { ModelError, type Model } from './model';
import type { ModelHttpPool } from './model-http-pool';
import type { ModelEnv } from './model-config';
import { OpenAiModel } from './openai-model';
import { bucketOf, RateGate, type RateBuckets, type RateGateMetrics, type RateLimitDefaults } from './rate-gate';
import type { RetryOptions } from './retry';
import { ScriptedModel, scriptStepDelayMs } from './scripted-model';

/** What createModel needs besides the agent's spec. */
export interface CreateModelOptions {
  /** The activating fact (scripted templating and `when`); null for a manual run. */
  fact: Fact | null;
  /** A manual run's input (scripted `{{input}}`); null or absent for a trigger run. */
  input?: string | null;
  /** Model calls the run already made (a continued run: the scripted model resumes after them). @defaultValue 0 */
  answered?: number;
  /** The scripted model's seed for steps with a `chance` (the run's id). @defaultValue '' */
  seed?: string;
  /** Reads a workspace secret's value by name (the run's workspace); rejects when there is none. */
  resolveSecret: (name: string) => Promise<string>;
  env: Pick<ModelEnv, 'OPENAI_BASE_URL' | 'OPENAI_API_KEY' | 'MODEL_TIMEOUT_MS' | 'MODEL_MAX_ATTEMPTS'> & Partial<Pick<ModelEnv, 'MODEL_STREAM'>>;
  /**
   * Vets an agent's own `model.baseUrl` (private, loopback, link-local and
   * metadata ranges) before any request; rejects to refuse it, or returns
   * the checked address, to which the model's requests are then pinned. The
   * operator's OPENAI_BASE_URL is trusted. @defaultValue none (every URL allowed)
   */
  checkBaseUrl?: (url: string) => Promise<PinnedHost | void>;
  /** The process's connections to model hosts (the operator's endpoint). @defaultValue defaultModelHttpPool() */
  pool?: ModelHttpPool;
  /** The provider keys' shared rate-limit buckets (decision 0060); absent: calls are not gated. */
  rateBuckets?: RateBuckets;
  /** The runner's default limits and window. @defaultValue no limits, a 60 s window */
  rateLimits?: RateLimitDefaults;
  /** Where a model's gate reports its waits and pauses (the runner's metrics), by provider and model. @defaultValue none */
  rateMetrics?: (labels: { provider: string; model: string }) => RateGateMetrics;
  /** Backoff tuning (tests); attempts come from MODEL_MAX_ATTEMPTS. @defaultValue DEFAULT_RETRY_OPTIONS */
  retry?: Partial<Omit<RetryOptions, 'maxAttempts'>>;
}

/**
 * The Model for an agent's spec: the scripted model for `scripted`, the
 * OpenAI-compatible adapter for `openai`. The endpoint is `model.baseUrl` or
 * OPENAI_BASE_URL; the key is the workspace secret `model.apiKeySecret`, or
 * else OPENAI_API_KEY — which is sent only to OPENAI_BASE_URL, never to an
 * endpoint an agent's author chose.
 *
 * @throws ModelError `model_auth_failed` when no key applies or the secret cannot be read.
 */
export async function createModel(spec: Pick<AgentSpec, 'model' | 'script'>, options: CreateModelOptions): Promise<Model> {
  const { model } = spec;
  switch (model.provider) {
    case 'scripted':
      return new ScriptedModel({ script: spec.script ?? [], fact: options.fact, input: options.input ?? null, stepMs: scriptStepDelayMs(model.params), answered: options.answered, seed: options.seed });
    case 'openai': {
      const { env } = options;
      const ownEndpoint = model.baseUrl !== undefined && !sameEndpoint(model.baseUrl, env.OPENAI_BASE_URL);
      const pin = ownEndpoint ? await options.checkBaseUrl?.(model.baseUrl!) : undefined;
      const key = await apiKey(model.apiKeySecret, ownEndpoint, options);
      const baseUrl = model.baseUrl ?? env.OPENAI_BASE_URL;
      const rateMetrics = options.rateMetrics?.({ provider: model.provider, model: model.name });
      const rateGate = options.rateBuckets && new RateGate(options.rateBuckets, bucketOf(baseUrl, key), model.rateLimit, options.rateLimits ?? NO_RATE_LIMITS, rateMetrics);
      return new OpenAiModel({
        model: model.name,
        baseUrl,
        ...(rateGate ? { rateGate } : {}),
        apiKey: key,
        params: model.params,
        timeoutMs: env.MODEL_TIMEOUT_MS,
        retry: { ...options.retry, maxAttempts: env.MODEL_MAX_ATTEMPTS },
        ...(env.MODEL_STREAM === undefined ? {} : { stream: env.MODEL_STREAM }),
        ...(pin ? { fetch: createPinnedFetch(pin) } : options.pool ? { pool: options.pool } : {}),
      });
    }
  }
}

const NO_RATE_LIMITS: RateLimitDefaults = { MODEL_RATE_LIMIT_WINDOW_MS: 60_000, MODEL_RATE_LIMIT_MARGIN_MS: 500 };

async function apiKey(secretName: string | undefined, ownEndpoint: boolean, options: CreateModelOptions): Promise<string> {
  if (secretName !== undefined) {
    try {
      return await options.resolveSecret(secretName);
    } catch (error) {
      throw new ModelError(MODEL_ERROR_CODES.authFailed, `the API key secret ${secretName} cannot be read`, { cause: error });
    }
  }
  if (ownEndpoint) throw new ModelError(MODEL_ERROR_CODES.authFailed, 'an agent with its own model.baseUrl needs model.apiKeySecret: the runner key is sent only to OPENAI_BASE_URL');
  if (!options.env.OPENAI_API_KEY) throw new ModelError(MODEL_ERROR_CODES.authFailed, 'no API key: set model.apiKeySecret on the agent or OPENAI_API_KEY on the runner');
  return options.env.OPENAI_API_KEY;
}

/** Same origin and path, ignoring a trailing slash. */
function sameEndpoint(a: string, b: string): boolean {
  const normalize = (url: string) => {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  };
  return normalize(a) === normalize(b);
}
