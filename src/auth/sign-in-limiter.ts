import { Inject, Injectable, HttpException, HttpStatus } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { errorBody } from '../http/error-body.js';
import { REDIS, type RedisClient } from '../redis/redis.module.js';

const WINDOW_SECONDS = 15 * 60;

/** Limits sign-in link requests per address and per client IP, shared by every node through Redis when configured. */
@Injectable()
export class SignInLimiter {
  private readonly perEmail: RateLimiterAbstract;
  private readonly perIp: RateLimiterAbstract;

  constructor(@Inject(REDIS) redis: RedisClient | null, @Inject(APP_CONFIG) config: AppConfig) {
    const make = (keyPrefix: string, points: number) =>
      redis
        ? new RateLimiterRedis({
            storeClient: redis,
            useRedisPackage: true,
            keyPrefix: `${config.redisPrefix}${keyPrefix}`,
            points,
            duration: WINDOW_SECONDS,
          })
        : new RateLimiterMemory({ keyPrefix, points, duration: WINDOW_SECONDS });
    this.perEmail = make('signin:email', 5);
    this.perIp = make('signin:ip', 30);
  }

  async consume(email: string, ip: string): Promise<void> {
    try {
      await this.perIp.consume(ip);
      await this.perEmail.consume(email);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      const refusal = new HttpException(
        errorBody('too many sign-in requests; try again later', { retry_after: retryAfter }),
        HttpStatus.TOO_MANY_REQUESTS,
      );
      // The exception filter sends an exception's `headers`: a 429 says when to retry, as every 429 of the API does.
      throw Object.assign(refusal, { headers: { 'Retry-After': String(retryAfter) } });
    }
  }
}
