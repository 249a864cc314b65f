import { MODEL_ERROR_CODES } from '@switchyard/contracts';
import { ProviderRateLimits } from '@switchyard/redis';
import { createTestRedis, startLocalOpenAiServer, type LocalOpenAiServer, type TestRedis } from '@switchyard/testing';
import { ModelError, type ChatMessage } from '../src/model/model';
import { OpenAiModel } from '../src/model/openai-model';
import { Registry } from 'prom-client';
import { rateLimitMetrics } from '../src/metrics';
import { bucketOf, RateGate, type RateLimitDefaults } from '../src/model/rate-gate';

const KEY = 'sk-test-rate-0123456789';
const never = new AbortController().signal;
const user: ChatMessage[] = [{ role: 'user', content: 'hello' }];
/** A 6 s "minute", no margin: 60 requests a minute are one every 100 ms. */
const DEFAULTS: RateLimitDefaults = { MODEL_RATE_LIMIT_WINDOW_MS: 6_000, MODEL_RATE_LIMIT_MARGIN_MS: 0 };

/**
 * The runner's side of the shared rate limit (decision 0060) against real Redis and the local
 * OpenAI-compatible server: calls wait their turn and say so, the spec's limit replaces the
 * runner's, a 429 with retry-after pauses every model on the key without spending an attempt,
 * and a wait ends with the run's signal.
 */
describe('RateGate on the shared bucket (real Redis)', () => {
  let t: TestRedis;
  let server: LocalOpenAiServer;
  let buckets: ProviderRateLimits;
  beforeEach(async () => {
    t = await createTestRedis();
    server = await startLocalOpenAiServer();
    buckets = new ProviderRateLimits(t.redis, t.prefix);
  });
  afterEach(async () => {
    await server.close();
    await t.cleanup();
  });

  const gate = (limit: ConstructorParameters<typeof RateGate>[2], defaults: RateLimitDefaults = DEFAULTS) => new RateGate(buckets, bucketOf(server.baseUrl, KEY), limit, defaults);
  const model = (rateGate: RateGate, maxAttempts = 1) => new OpenAiModel({ model: 'gpt-test', baseUrl: server.baseUrl, apiKey: KEY, timeoutMs: 2_000, retry: { maxAttempts, baseDelayMs: 20, random: () => 0 }, rateGate });

  it('spaces the calls of models sharing a key and tells each call how long it waits before it waits', async () => {
    for (let i = 0; i < 3; i++) server.enqueue({ type: 'message', content: 'ok', usage: { prompt_tokens: 1, completion_tokens: 1 } });
    const waits: number[] = [];
    const began = performance.now();
    await Promise.all([0, 1, 2].map(() => model(gate({ requestsPerMinute: 60 })).complete({ messages: user, tools: [], signal: never, onRateLimitWait: (ms) => void waits.push(ms) })));
    expect(performance.now() - began).toBeGreaterThanOrEqual(190);
    expect(waits.sort((a, b) => a - b)).toEqual([expect.any(Number), expect.any(Number)]);
    expect(waits[0]).toBeGreaterThan(50);
    expect(waits[1]).toBeGreaterThan(150);
  });

  it("the spec's limit replaces the runner's default; the default applies where the spec sets none", async () => {
    const defaults = { ...DEFAULTS, MODEL_REQUESTS_PER_MINUTE: 6 };
    const spaced = async (limit: ConstructorParameters<typeof RateGate>[2]) => {
      const g = new RateGate(buckets, `b${Math.random().toString(36).slice(2)}`, limit, defaults);
      await g.acquire(0, never);
      let waited = 0;
      await g.acquire(0, never, (ms) => void (waited = ms));
      return waited;
    };
    expect(await spaced(undefined)).toBeGreaterThan(900);
    expect(await spaced({ tokensPerMinute: 1000 })).toBeGreaterThan(900);
    const own = await spaced({ requestsPerMinute: 60 });
    expect(own).toBeGreaterThan(50);
    expect(own).toBeLessThanOrEqual(100);
  });

  it('a call reserves its body at four bytes a token under a token limit, and no tokens without one', async () => {
    const reserved: number[] = [];
    const counting = { ...buckets, reserve: (bucket: string, reservation: { msPerRequest: number; msPerToken: number; tokens: number }) => (reserved.push(reservation.tokens), buckets.reserve(bucket, reservation)), pause: buckets.pause.bind(buckets), settle: buckets.settle.bind(buckets), paused: buckets.paused.bind(buckets) };
    const long: ChatMessage[] = [{ role: 'user', content: 'x'.repeat(4_000) }];
    for (let i = 0; i < 2; i++) server.enqueue({ type: 'message', content: 'ok' });
    await model(new RateGate(counting, 'tokens', { tokensPerMinute: 1_000_000 }, DEFAULTS)).complete({ messages: long, tools: [], signal: never });
    await model(new RateGate(counting, 'requests', { requestsPerMinute: 6_000 }, DEFAULTS)).complete({ messages: long, tools: [], signal: never });
    expect(reserved[0]).toBeGreaterThan(1_000);
    expect(reserved[0]).toBeLessThan(1_100);
    expect(reserved[1]).toBe(0);
  });

  it('a 429 with retry-after pauses every model on the key, and is retried without spending an attempt', async () => {
    server.enqueue({ type: 'error', status: 429, headers: { 'retry-after': '1' } });
    server.enqueue({ type: 'message', content: 'after the pause' });
    server.enqueue({ type: 'message', content: 'other' });
    const waits: number[] = [];
    const throttled = model(gate({ requestsPerMinute: 6000 })).complete({ messages: user, tools: [], signal: never, onRateLimitWait: (ms) => void waits.push(ms) });
    const began = performance.now();
    const answer = await throttled;
    expect(answer.message).toBe('after the pause');
    expect(performance.now() - began).toBeGreaterThanOrEqual(900);
    expect(waits.some((ms) => ms > 800)).toBe(true);
    // Another model on the same key (another runner, another agent) is held by the same pause.
    await buckets.pause(bucketOf(server.baseUrl, KEY), 500);
    const otherWaits: number[] = [];
    await model(gate(undefined, DEFAULTS)).complete({ messages: user, tools: [], signal: never, onRateLimitWait: (ms) => void otherWaits.push(ms) });
    expect(otherWaits[0]).toBeGreaterThan(400);
  });

  it('a 429 without a wait to honour (retry-after 0) spends attempts as before: no free loop against the provider', async () => {
    for (let i = 0; i < 2; i++) server.enqueue({ type: 'error', status: 429, headers: { 'retry-after-ms': '0' } });
    const error = await model(gate({ requestsPerMinute: 6000 }), 2).complete({ messages: user, tools: [], signal: never }).then(() => null, (e: unknown) => e);
    expect((error as ModelError).code).toBe(MODEL_ERROR_CODES.rateLimited);
    expect(server.requests).toHaveLength(2);
  });

  it("a wait ends with the run's signal: the call rejects model_aborted and sends nothing", async () => {
    await buckets.pause(bucketOf(server.baseUrl, KEY), 5_000);
    const controller = new AbortController();
    const call = model(gate({ requestsPerMinute: 60 })).complete({ messages: user, tools: [], signal: controller.signal, onRateLimitWait: () => controller.abort() });
    const error = await call.then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).code).toBe(MODEL_ERROR_CODES.aborted);
    expect(server.requests).toHaveLength(0);
  });

  it("counts the waits and the 429 pauses on the runner's metrics, by provider and model", async () => {
    const registry = new Registry();
    const metricsOf = rateLimitMetrics(registry);
    const labels = { provider: 'openai', model: 'gpt-test' };
    const metered = (limit: ConstructorParameters<typeof RateGate>[2]) => new RateGate(buckets, bucketOf(server.baseUrl, KEY), limit, DEFAULTS, metricsOf(labels));
    server.enqueue({ type: 'error', status: 429, headers: { 'retry-after': '1' } });
    for (let i = 0; i < 2; i++) server.enqueue({ type: 'message', content: 'ok' });
    // Two calls on a key of 60 a (6 s) minute: the second waits ~100 ms; the first's 429 pauses the key 1 s.
    await Promise.all([0, 1].map(() => model(metered({ requestsPerMinute: 60 })).complete({ messages: user, tools: [], signal: never })));
    const read = async (name: string) => (await registry.getSingleMetric(name)!.get()).values;
    const waits = await read('switchyard_runner_rate_limit_wait_seconds');
    const named = (name: string) => waits.find((v) => (v as { metricName?: string }).metricName === name && v.labels.model === 'gpt-test')?.value ?? 0;
    const count = named('switchyard_runner_rate_limit_wait_seconds_count');
    const sum = named('switchyard_runner_rate_limit_wait_seconds_sum');
    expect(count).toBeGreaterThanOrEqual(2);
    expect(sum).toBeGreaterThan(0.8);
    expect((await read('switchyard_runner_rate_limit_pauses_total'))).toEqual([expect.objectContaining({ value: 1, labels: labels })]);
    expect((await read('switchyard_runner_rate_limit_paused_seconds_total'))[0]?.value).toBeCloseTo(1, 1);
  });
});
