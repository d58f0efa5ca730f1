import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { REDIS, type RedisClient } from '../redis/redis.module.js';
import type { RateLimitCount, RateLimitWindow } from './counters/credit-counters.js';

export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window frees a request (for Retry-After). */
  readonly retryAfterSeconds: number;
}

const WINDOW_SECONDS = 60;

/**
 * Requests per API key per minute (fixed one-minute windows), shared by every node through Redis, in-process
 * without it. Limits come from the organization's plan and the key's environment, and can change with the plan.
 */
@Injectable()
export class RateLimiterService {
  private readonly limiters = new Map<number, RateLimiterAbstract>();
  // One key space for every limit, so a plan change keeps the requests already counted in this minute.
  private readonly keyPrefix: string;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient | null,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.keyPrefix = `${config.redisPrefix}ratelimit`;
  }

  async consume(bucket: string, limitPerMinute: number): Promise<RateLimitDecision> {
    const limiter = this.limiterFor(limitPerMinute);
    try {
      const result = await limiter.consume(bucket);
      return { allowed: true, limit: limitPerMinute, remaining: result.remainingPoints, retryAfterSeconds: 0 };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return refusal(limitPerMinute, rejection.msBeforeNext);
    }
  }

  /**
   * The Redis window of `bucket`, exactly as `consume` keeps it (rate-limiter-flexible's key, one point per call), so
   * that RateLeases can take shares of it in one atomic step. Null without Redis.
   */
  sharedWindow(bucket: string, limitPerMinute: number): RateLimitWindow | null {
    if (!this.redis) return null;
    return { key: `${this.keyPrefix}:${bucket}`, points: limitPerMinute, seconds: WINDOW_SECONDS };
  }

  /** The decision `consume` takes when the window counts `count` (rate-limiter-flexible's rules). */
  decide(limitPerMinute: number, count: RateLimitCount): RateLimitDecision {
    if (count.consumed > limitPerMinute) return refusal(limitPerMinute, count.msBeforeNext);
    return {
      allowed: true,
      limit: limitPerMinute,
      remaining: Math.max(limitPerMinute - count.consumed, 0),
      retryAfterSeconds: 0,
    };
  }

  private limiterFor(points: number): RateLimiterAbstract {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      const options = { keyPrefix: this.keyPrefix, points, duration: WINDOW_SECONDS };
      limiter = this.redis
        ? new RateLimiterRedis({ ...options, storeClient: this.redis, useRedisPackage: true })
        : new RateLimiterMemory(options);
      this.limiters.set(points, limiter);
    }
    return limiter;
  }
}

function refusal(limitPerMinute: number, msBeforeNext: number): RateLimitDecision {
  return {
    allowed: false,
    limit: limitPerMinute,
    remaining: 0,
    retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)),
  };
}
