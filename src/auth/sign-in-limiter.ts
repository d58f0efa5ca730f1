import { Inject, Injectable } from '@nestjs/common';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { REDIS, REDIS_STALL_WATCH, type RedisClient } from '../redis/redis.module.js';
import type { RedisStallWatch } from '../redis/redis-stall-watch.js';
import { retryAfterSeconds, signInWindow, tooManySignInAttempts } from './sign-in-rate-limits.js';

/** Limits sign-in link requests per address and per client IP, shared by every node through Redis when configured. */
@Injectable()
export class SignInLimiter {
  private readonly perEmail: RateLimiterAbstract;
  private readonly perIp: RateLimiterAbstract;

  constructor(
    @Inject(REDIS) redis: RedisClient | null,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(REDIS_STALL_WATCH) private readonly redisStall: RedisStallWatch | null,
  ) {
    this.perEmail = signInWindow(redis, config, 'signin:email', 5);
    this.perIp = signInWindow(redis, config, 'signin:ip', 30);
  }

  async consume(email: string, ip: string): Promise<void> {
    // A Redis that stopped answering would hold the request: 503 at once, as for the data plane.
    this.redisStall?.assertAnswering();
    try {
      await this.perIp.consume(ip);
      await this.perEmail.consume(email);
    } catch (rejection) {
      const retryAfter = retryAfterSeconds(rejection);
      if (retryAfter === null) throw rejection;
      throw tooManySignInAttempts('too many sign-in requests; try again later', retryAfter);
    }
  }
}
