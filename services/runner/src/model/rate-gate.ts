import { createHash } from 'node:crypto';
import type { ModelRateLimit } from '@switchyard/contracts';
import { sleep } from './retry';

/** The shared buckets (ProviderRateLimits of `@switchyard/redis`, one Lua script per operation). */
export interface RateBuckets {
  /** Takes the next slot; resolves to the ms to wait before sending. */
  reserve(bucket: string, reservation: { msPerRequest: number; msPerToken: number; tokens: number }): Promise<number>;
  /** Pauses the bucket for every runner. */
  pause(bucket: string, ms: number): Promise<number>;
  /** Moves the bucket's token instant by `ms`. */
  settle(bucket: string, ms: number): Promise<void>;
  /** Ms the bucket is still paused. */
  paused(bucket: string): Promise<number>;
}

/** The runner's defaults for the limits and the window they are counted over. */
export interface RateLimitDefaults {
  /** Requests a window for keys whose model sets none; unset: not limited. */
  MODEL_REQUESTS_PER_MINUTE?: number;
  /** Tokens a window for keys whose model sets none; unset: not limited. */
  MODEL_TOKENS_PER_MINUTE?: number;
  /** The "minute", in ms (60000; a test shrinks it to run in seconds). */
  MODEL_RATE_LIMIT_WINDOW_MS: number;
  /** Added to each window's worth of request spacing, so a send delayed by its process cannot crowd a window. */
  MODEL_RATE_LIMIT_MARGIN_MS: number;
}

/** Told before a call waits its turn; the wait starts once it resolves. */
export type RateLimitWaitListener = (waitMs: number) => Promise<void> | void;

/** What a gate reports: the runner's Prometheus metrics bind it per provider and model (loopMetrics). */
export interface RateGateMetrics {
  /** A call waited its turn this long (ms; cut short when its run was aborted). */
  waited(ms: number): void;
  /** A 429's `retry-after` paused the bucket for every runner this long (ms). */
  paused(ms: number): void;
}

/**
 * One model's gate onto its provider key's shared bucket (decision 0060): every attempt of a call
 * takes a slot first, waits for it when the bucket is busy or paused, and corrects the tokens
 * once the provider says what the call used. A bucket that cannot be reached lets the call go:
 * the provider's own 429s are still honoured.
 */
export class RateGate {
  private readonly msPerRequest: number;
  private readonly msPerToken: number;

  constructor(
    private readonly buckets: RateBuckets,
    /** The provider key's bucket name (bucketOf). */
    readonly bucket: string,
    limit: ModelRateLimit | undefined,
    defaults: RateLimitDefaults,
    private readonly metrics?: RateGateMetrics,
  ) {
    const requests = limit?.requestsPerMinute ?? defaults.MODEL_REQUESTS_PER_MINUTE;
    const tokens = limit?.tokensPerMinute ?? defaults.MODEL_TOKENS_PER_MINUTE;
    this.msPerRequest = requests ? (defaults.MODEL_RATE_LIMIT_WINDOW_MS + defaults.MODEL_RATE_LIMIT_MARGIN_MS) / requests : 0;
    this.msPerToken = tokens ? defaults.MODEL_RATE_LIMIT_WINDOW_MS / tokens : 0;
  }

  /** Whether the bucket counts tokens (a token limit applies): only then does a call need its estimate. */
  get countsTokens(): boolean {
    return this.msPerToken > 0;
  }

  /** Waits for this call's turn (aborted by `signal`: rejects `model_aborted`). */
  async acquire(tokens: number, signal: AbortSignal, onWait?: RateLimitWaitListener): Promise<void> {
    for (;;) {
      const waitMs = await this.quietly(() => this.buckets.reserve(this.bucket, { msPerRequest: this.msPerRequest, msPerToken: this.msPerToken, tokens }), 0);
      if (waitMs <= 0) return;
      await onWait?.(waitMs);
      const began = performance.now();
      try {
        await sleep(waitMs, signal);
      } finally {
        this.metrics?.waited(performance.now() - began);
      }
      // A 429 that paused the bucket after this slot was taken holds this call too: take a new slot after the pause.
      if ((await this.quietly(() => this.buckets.paused(this.bucket), 0)) <= 0) return;
    }
  }

  /** A 429's `retry-after`: every runner's calls on this key wait it out. */
  async pause(ms: number): Promise<void> {
    this.metrics?.paused(ms);
    await this.quietly(() => this.buckets.pause(this.bucket, ms), 0);
  }

  /** Corrects the reserved estimate with the tokens the call used. */
  async settle(estimated: number, used: number): Promise<void> {
    if (this.msPerToken > 0) await this.quietly(() => this.buckets.settle(this.bucket, (used - estimated) * this.msPerToken), undefined);
  }

  private async quietly<T>(operation: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await operation();
    } catch {
      return fallback;
    }
  }
}

/**
 * The bucket of a provider key: a hash of the endpoint and the key itself, so every agent and
 * workspace using one key (the operator's or a secret's) shares one bucket, and Redis never holds the key.
 */
export function bucketOf(baseUrl: string, apiKey: string): string {
  const url = new URL(baseUrl);
  return createHash('sha256').update(`${url.origin}${url.pathname.replace(/\/+$/, '')}\n${apiKey}`).digest('hex').slice(0, 32);
}
