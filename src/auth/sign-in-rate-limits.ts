import { HttpException, HttpStatus } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AppConfig } from '../config/app-config.js';
import { errorBody } from '../http/error-body.js';
import type { RedisClient } from '../redis/redis.module.js';

/** The window of every sign-in limit: as long as a sign-in link lives by default. */
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

/**
 * A window of `points` per key over SIGN_IN_WINDOW_SECONDS: in Redis when configured (shared by every node), in
 * memory otherwise (embedded mode, one node).
 */
export function signInWindow(
  redis: RedisClient | null,
  config: AppConfig,
  keyPrefix: string,
  points: number,
): RateLimiterAbstract {
  return redis
    ? new RateLimiterRedis({
        storeClient: redis,
        useRedisPackage: true,
        keyPrefix: `${config.redisPrefix}${keyPrefix}`,
        points,
        duration: SIGN_IN_WINDOW_SECONDS,
      })
    : new RateLimiterMemory({ keyPrefix, points, duration: SIGN_IN_WINDOW_SECONDS });
}

/** Seconds until a refused window has room again (at least 1), or null when `rejection` is not a refusal. */
export function retryAfterSeconds(rejection: unknown): number | null {
  if (!(rejection instanceof RateLimiterRes)) return null;
  return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
}

/** The 429 message of each lock of failed redemptions (RedemptionScope). */
export const TOO_MANY_REDEMPTIONS = {
  address: 'too many failed sign-in attempts from this address; try again later',
  link: 'too many failed attempts with this sign-in link; ask for a new link',
  email: 'too many failed sign-in attempts for this e-mail address; try again later',
} as const;

/** The 429 of the sign-in limits: the error body with `retry_after`, and the Retry-After header. */
export function tooManySignInAttempts(
  message: string,
  retryAfter: number,
): HttpException & { headers: Record<string, string> } {
  const refusal = new HttpException(errorBody(message, { retry_after: retryAfter }), HttpStatus.TOO_MANY_REQUESTS);
  // The exception filter sends an exception's `headers`: a 429 says when to retry, as every 429 of the API does.
  return Object.assign(refusal, { headers: { 'Retry-After': String(retryAfter) } });
}
