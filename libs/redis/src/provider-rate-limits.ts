import type { Redis } from './connection';
import { toKey } from './keys';

/**
 * One provider key's bucket, a hash of three instants in Redis's own clock (ms, TIME): `r` when
 * the next request may go, `t` when the tokens spent so far are paid back, `p` until when a 429
 * paused every caller. A reservation takes the latest of now, `p`, `r` and `t` as its start and
 * moves `r` one request interval and `t` its tokens' worth past that start: reservations are
 * spaced at least one interval apart whatever runner asked (GCRA with no burst, decision 0060).
 * Redis's clock, not the runners', so runners whose clocks drift still share one timeline.
 *
 * KEYS[1]: the bucket. ARGV[1]: mode (`reserve`, `pause`, `settle`, `paused`), then
 *  reserve: ms per request (0: none), ms per token (0: none), tokens;  → ms to wait before sending
 *  pause:   ms                                                         → ms the bucket is paused
 *  settle:  ms to move `t` by (the tokens' estimate corrected)         → 0
 *  paused:                                                             → ms the bucket is still paused
 * ARGV[last]: ms an idle bucket is kept.
 */
const BUCKET_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local state = redis.call('HMGET', KEYS[1], 'r', 't', 'p')
local r = tonumber(state[1]) or 0
local t = tonumber(state[2]) or 0
local p = tonumber(state[3]) or 0
local mode = ARGV[1]
local idle = tonumber(ARGV[#ARGV])
local result = 0
if mode == 'reserve' then
  local start = math.max(now, p, r, t)
  local perRequest = tonumber(ARGV[2])
  local perToken = tonumber(ARGV[3])
  if perRequest > 0 then r = start + perRequest end
  if perToken > 0 then t = start + perToken * tonumber(ARGV[4]) end
  result = start - now
elseif mode == 'pause' then
  p = math.max(p, now + tonumber(ARGV[2]))
  result = p - now
elseif mode == 'settle' then
  t = t + tonumber(ARGV[2])
elseif mode == 'paused' then
  return math.ceil(math.max(p - now, 0))
else
  return redis.error_reply('unknown bucket mode ' .. tostring(mode))
end
redis.call('HSET', KEYS[1], 'r', string.format('%.3f', r), 't', string.format('%.3f', t), 'p', string.format('%.3f', p))
redis.call('PEXPIRE', KEYS[1], math.ceil(math.max(r, t, p, now) - now + idle))
return math.ceil(result)
`;

interface BucketCommand {
  switchyardRateBucket(key: string, mode: string, ...args: string[]): Promise<number>;
}

/** How long a bucket nobody used is kept (beyond its last reservation). */
const IDLE_KEEP_MS = 120_000;

/** What one reservation spends. */
export interface RateReservation {
  /** Ms between two requests (the window over the requests limit); 0: requests are not limited. */
  msPerRequest: number;
  /** Ms one token is worth (the window over the tokens limit); 0: tokens are not limited. */
  msPerToken: number;
  /** Tokens this call is estimated to spend. */
  tokens: number;
}

/**
 * The model providers' rate-limit buckets every runner shares (decision 0060), one per provider
 * key under `{prefix}:ratelimit:{bucket}`. Each operation is one atomic Lua script.
 */
export class ProviderRateLimits {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('switchyardRateBucket', { lua: BUCKET_SCRIPT, numberOfKeys: 1 });
  }

  /** Takes the next slot of `bucket`; resolves to the ms to wait before sending (0: at once). */
  reserve(bucket: string, reservation: RateReservation): Promise<number> {
    const { msPerRequest, msPerToken, tokens } = reservation;
    return this.call(bucket, 'reserve', msPerRequest, msPerToken, Math.max(0, Math.round(tokens)));
  }

  /** Pauses `bucket` for every runner for `ms` (a 429's `retry-after`); resolves to the ms it stays paused. */
  pause(bucket: string, ms: number): Promise<number> {
    return this.call(bucket, 'pause', Math.max(0, ms));
  }

  /** Moves the bucket's token instant by `ms` (positive: the call spent more tokens than reserved). */
  async settle(bucket: string, ms: number): Promise<void> {
    if (ms !== 0) await this.call(bucket, 'settle', ms);
  }

  /** Ms `bucket` is still paused (0: not paused). */
  paused(bucket: string): Promise<number> {
    return this.call(bucket, 'paused');
  }

  private call(bucket: string, mode: string, ...args: number[]): Promise<number> {
    return (this.redis as unknown as BucketCommand).switchyardRateBucket(toKey(this.prefix, 'ratelimit', bucket), mode, ...args.map(String), String(IDLE_KEEP_MS));
  }
}
