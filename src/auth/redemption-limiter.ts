import { Inject, Injectable } from '@nestjs/common';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { REDIS, REDIS_STALL_WATCH, type RedisClient } from '../redis/redis.module.js';
import type { RedisStallWatch } from '../redis/redis-stall-watch.js';
import { retryAfterSeconds, signInWindow } from './sign-in-rate-limits.js';

/** Failed redemptions a client address may make per window: as many link requests as it may make. */
export const REDEMPTION_FAILURES_PER_WINDOW = 30;

/**
 * Limits failed sign-in link redemptions (wrong, expired or used tokens) per client IP, shared by every node through
 * Redis when configured. Each attempt takes a point before the token is looked up, so that concurrent guesses cannot
 * slip past the limit together; a successful redemption gives its point back.
 */
@Injectable()
export class RedemptionLimiter {
  private readonly perIp: RateLimiterAbstract;

  constructor(
    @Inject(REDIS) redis: RedisClient | null,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(REDIS_STALL_WATCH) private readonly redisStall: RedisStallWatch | null,
  ) {
    this.perIp = signInWindow(redis, config, 'redeem:ip', REDEMPTION_FAILURES_PER_WINDOW);
  }

  /** Takes one attempt of `ip`'s allowance: null when it may go on, else the seconds until it may retry. */
  async take(ip: string): Promise<number | null> {
    // A Redis that stopped answering would hold the request: 503 at once, as for the data plane.
    this.redisStall?.assertAnswering();
    try {
      await this.perIp.consume(ip);
      return null;
    } catch (rejection) {
      const retryAfter = retryAfterSeconds(rejection);
      if (retryAfter === null) throw rejection;
      return retryAfter;
    }
  }

  /** Gives back the attempt of a redemption that succeeded: only failures count. */
  async giveBack(ip: string): Promise<void> {
    await this.perIp.reward(ip, 1);
  }
}
