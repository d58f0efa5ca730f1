import type { RedisClient } from '../../redis/redis.module.js';
import type { RateLimitDecision, RateLimiterService } from '../rate-limiter.service.js';
import { onRedisConnectionLost } from '../../redis/redis-events.js';
import { runScript } from '../../redis/run-script.js';

/**
 * Rate-limit leases: a node takes a share of a key's current window from Redis (counted in the window at once, so
 * the shares of all nodes never exceed the limit) and counts calls against it locally; a call that finds a share
 * does no Redis round trip. The window is rate-limiter-flexible's (RateLimiterService.sharedWindow: same key, same
 * count), so `consume` and the shares count together. A share is at most an eighth of what the window has left
 * (at least one call), and as large as the calls of the last share needed, up to MAX_SHARE; it dies with its window
 * (its end as measured from before the step was sent, so never after Redis's), with a plan change, and when the
 * connection to Redis is lost. The slack: a 429 can come while other nodes still hold unused shares, at most an
 * eighth of what the window had left when each was taken; `X-RateLimit-Remaining` counts them as used.
 */
export const MAX_SHARE = 1_000;
const INITIAL_SHARE = 4;

/**
 * KEYS[1] the window; ARGV[1] the limit, ARGV[2] the share wanted, ARGV[3] the window's seconds. Starts the window
 * as rate-limiter-flexible does; returns the share taken (0: the window is full), the window's count after it,
 * and its milliseconds left.
 */
const SHARE = `
redis.call('SET', KEYS[1], 0, 'EX', ARGV[3], 'NX')
local count = tonumber(redis.call('GET', KEYS[1]))
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -1 then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  ttl = 1000 * ARGV[3]
end
local room = tonumber(ARGV[1]) - count
if room <= 0 then return {0, count, ttl} end
local share = math.floor(room / 8)
if share > tonumber(ARGV[2]) then share = tonumber(ARGV[2]) end
if share < 1 then share = 1 end
return {share, redis.call('INCRBY', KEYS[1], share), ttl}`;

interface Share {
  readonly limit: number;
  left: number;
  /** The window's count once this share was taken (the share included). */
  readonly count: number;
  readonly expiresAt: number;
}

interface Bucket {
  share: Share | null;
  refill: Promise<RateLimitDecision | null> | null;
  want: number;
  lastAt: number;
}

export class RateLeases {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly redis: RedisClient | null,
    private readonly limiter: RateLimiterService,
  ) {
    if (redis) onRedisConnectionLost(redis, () => this.dropAll());
  }

  /** Counts a call of `bucket` against its per-minute limit; without Redis, the in-process limiter does. */
  async admit(bucket: string, limitPerMinute: number): Promise<RateLimitDecision> {
    if (!this.redis) return this.limiter.consume(bucket, limitPerMinute);
    let state = this.buckets.get(bucket);
    if (!state) {
      state = { share: null, refill: null, want: INITIAL_SHARE, lastAt: 0 };
      this.buckets.set(bucket, state);
    }
    for (;;) {
      const share = state.share;
      if (
        share &&
        share.limit === limitPerMinute &&
        share.left > 0 &&
        Date.now() < share.expiresAt &&
        this.redis.isReady
      ) {
        share.left -= 1;
        return {
          allowed: true,
          limit: limitPerMinute,
          remaining: Math.max(0, limitPerMinute - share.count + share.left),
          retryAfterSeconds: 0,
        };
      }
      state.refill ??= this.take(bucket, state, limitPerMinute).finally(() => {
        state.refill = null;
      });
      const refused = await state.refill;
      if (refused) return refused;
    }
  }

  /** Takes a new share; the refusal when the window is full, null when a share was taken. */
  private async take(bucket: string, state: Bucket, limit: number): Promise<RateLimitDecision | null> {
    const window = this.limiter.sharedWindow(bucket, limit)!;
    const now = Date.now();
    state.want = now - state.lastAt < 1_000 ? Math.min(MAX_SHARE, state.want * 2) : INITIAL_SHARE;
    state.lastAt = now;
    state.share = null;
    const [taken, count, ttl] = (await runScript(this.redis!, SHARE, {
      keys: [window.key],
      arguments: [String(limit), String(state.want), String(window.seconds)],
    })) as [number, number, number];
    if (taken === 0) return this.limiter.decide(limit, { consumed: count + 1, msBeforeNext: ttl });
    state.share = { limit, left: taken, count, expiresAt: now + ttl };
    if (this.buckets.size > 100_000) this.prune();
    return null;
  }

  private dropAll(): void {
    for (const state of this.buckets.values()) state.share = null;
  }

  private prune(): void {
    const now = Date.now();
    for (const [bucket, state] of this.buckets) {
      if (!state.refill && (!state.share || now >= state.share.expiresAt)) this.buckets.delete(bucket);
    }
  }
}
