import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { REDIS, type RedisClient } from '../redis/redis.module.js';

export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window frees a request (for Retry-After). */
  readonly retryAfterSeconds: number;
}

/**
 * Requests per API key per minute (fixed one-minute windows), shared by every node through Redis, in-process
 * without it. Limits come from the organization's plan and the key's environment, and can change with the plan.
 */
@Injectable()
export class RateLimiterService {
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient | null,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async consume(bucket: string, limitPerMinute: number): Promise<RateLimitDecision> {
    const limiter = this.limiterFor(limitPerMinute);
    try {
      const result = await limiter.consume(bucket);
      return { allowed: true, limit: limitPerMinute, remaining: result.remainingPoints, retryAfterSeconds: 0 };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return {
        allowed: false,
        limit: limitPerMinute,
        remaining: 0,
        retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)),
      };
    }
  }

  private limiterFor(points: number): RateLimiterAbstract {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      // One key space for every limit, so a plan change keeps the requests already counted in this minute.
      const options = { keyPrefix: `${this.config.redisPrefix}ratelimit`, points, duration: 60 };
      limiter = this.redis
        ? new RateLimiterRedis({ ...options, storeClient: this.redis, useRedisPackage: true })
        : new RateLimiterMemory(options);
      this.limiters.set(points, limiter);
    }
    return limiter;
  }
}
