import { Inject, Injectable } from '@nestjs/common';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { REDIS, REDIS_STALL_WATCH, type RedisClient } from '../redis/redis.module.js';
import type { RedisStallWatch } from '../redis/redis-stall-watch.js';
import { retryAfterSeconds, signInWindow } from './sign-in-rate-limits.js';

/**
 * Failed redemptions per window that lock what they are counted against: a client address (many people may share
 * one behind a NAT, so only a flood of failures locks it: ten times the link requests it may make), one link (a used
 * or expired link tried again and again), and the e-mail address the failed links were sent to.
 */
export const REDEMPTION_FAILURES = { address: 300, link: 5, email: 10 } as const;

/** What a lock of failed redemptions is on. */
export type RedemptionScope = keyof typeof REDEMPTION_FAILURES;

/** A refused redemption: what is locked, and the seconds until it may be tried again. */
export interface RedemptionLock {
  readonly scope: RedemptionScope;
  readonly retryAfter: number;
}

/** The link a redemption names, once looked up: its hash (never the token itself) and the address it was sent to. */
export interface IssuedLink {
  readonly tokenHash: string;
  readonly email: string;
}

/**
 * Limits failed sign-in link redemptions (wrong, expired or used tokens), shared by every node through Redis when
 * configured (in memory in embedded mode). An attempt takes a point of its client address before the token is looked
 * up, so that concurrent guesses cannot slip past the limit together; a token that names an issued link then takes a
 * point of that link and of its e-mail address (a token that names none, a guess, is counted against the address
 * only: keeping a count per guess would only fill the store). A successful redemption gives its points back.
 */
@Injectable()
export class RedemptionLimiter {
  private readonly windows: Record<RedemptionScope, RateLimiterAbstract>;

  constructor(
    @Inject(REDIS) redis: RedisClient | null,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(REDIS_STALL_WATCH) private readonly redisStall: RedisStallWatch | null,
  ) {
    this.windows = {
      address: signInWindow(redis, config, 'redeem:ip', REDEMPTION_FAILURES.address),
      link: signInWindow(redis, config, 'redeem:link', REDEMPTION_FAILURES.link),
      email: signInWindow(redis, config, 'redeem:email', REDEMPTION_FAILURES.email),
    };
  }

  /** Takes one attempt of `ip`'s allowance: null when it may go on, else the lock. */
  async takeAddress(ip: string): Promise<RedemptionLock | null> {
    // A Redis that stopped answering would hold the request: 503 at once, as for the data plane.
    this.redisStall?.assertAnswering();
    return this.take('address', ip);
  }

  /** Takes one attempt of an issued link's allowance and of its e-mail address's: null when it may go on. */
  async takeLink(link: IssuedLink): Promise<RedemptionLock | null> {
    this.redisStall?.assertAnswering();
    const [byLink, byEmail] = await Promise.all([this.take('link', link.tokenHash), this.take('email', link.email)]);
    return byLink ?? byEmail;
  }

  /** Gives back the points an attempt took (it succeeded, or it could not be judged): only failures count. */
  async giveBack(ip: string, link: IssuedLink | null): Promise<void> {
    await Promise.all([
      this.windows.address.reward(ip, 1),
      ...(link ? [this.windows.link.reward(link.tokenHash, 1), this.windows.email.reward(link.email, 1)] : []),
    ]);
  }

  private async take(scope: RedemptionScope, key: string): Promise<RedemptionLock | null> {
    try {
      await this.windows[scope].consume(key);
      return null;
    } catch (rejection) {
      const retryAfter = retryAfterSeconds(rejection);
      if (retryAfter === null) throw rejection;
      return { scope, retryAfter };
    }
  }
}
