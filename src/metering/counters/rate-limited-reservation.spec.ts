import { randomBytes } from 'node:crypto';
import { jest } from '@jest/globals';
import { createClient } from 'redis';
import { TEST_REDIS_URL } from '../../../test/support/test-database.js';
import type { AppConfig } from '../../config/app-config.js';
import type { RedisClient } from '../../redis/redis.module.js';
import { RateLimiterService } from '../rate-limiter.service.js';
import { type CounterJournal, journalField } from './credit-counters.js';
import { RedisCreditCounters } from './redis-credit-counters.js';

/**
 * RedisCreditCounters.reserveWithinRateLimit (one script) against what it replaces: RateLimiterService.consume
 * (rate-limiter-flexible) and then, if allowed, RedisCreditCounters.reserve. Same decisions, same counters, same
 * journal, and one window shared by both ways.
 */
describe('the rate limit and the reservation in one Redis step', () => {
  let redis: RedisClient;
  let prefix: string;
  let limiter: RateLimiterService;
  let counters: RedisCreditCounters;

  beforeAll(async () => {
    redis = createClient({ url: TEST_REDIS_URL });
    await redis.connect();
  });
  beforeEach(() => {
    prefix = `rlr_${randomBytes(5).toString('hex')}:`;
    limiter = new RateLimiterService(redis, { redisPrefix: prefix } as AppConfig);
    counters = new RedisCreditCounters(redis);
  });
  afterEach(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(keys);
  });
  afterAll(async () => {
    await redis.close();
  });

  const seedOf = (value: number) => jest.fn(async () => value);

  /** One call both ways, on separate keys of the same shape; returns what each way decided. */
  async function both(label: string, points: number, amount: number, allowance: number, journal: boolean) {
    const quota = { separate: `${prefix}quota:separate:${label}`, combined: `${prefix}quota:combined:${label}` };
    const journalOf = (way: string): CounterJournal | null =>
      journal ? { key: `${prefix}journal:${way}`, call: `call-${label}` } : null;

    const decision = await limiter.consume(`separate-${label}`, points);
    const separate = decision.allowed
      ? {
          decision,
          reservation: await counters.reserve(quota.separate, amount, allowance, seedOf(5), journalOf('separate')),
        }
      : { decision, used: await counters.read(quota.separate, seedOf(5)) };

    const window = limiter.sharedWindow(`combined-${label}`, points)!;
    const result = await counters.reserveWithinRateLimit(
      window,
      quota.combined,
      amount,
      allowance,
      seedOf(5),
      journalOf('combined'),
    );
    const combined = result.allowed
      ? { decision: limiter.decide(points, result.rate), reservation: result.reservation }
      : { decision: limiter.decide(points, result.rate), used: result.used };

    const journalEntry = async (way: string) =>
      journal
        ? await redis.hGet(`${prefix}journal:${way}`, journalField(`call-${label}`, quota[way as 'separate']))
        : null;
    return {
      separate: { ...separate, counter: await redis.get(quota.separate), journal: await journalEntry('separate') },
      combined: { ...combined, counter: await redis.get(quota.combined), journal: await journalEntry('combined') },
    };
  }

  test.each([
    ['under both limits, journaled', 5, 3, 100, true],
    ['under both limits, no journal', 5, 3, 100, false],
    ['over the allowance', 5, 30, 20, true],
    ['at the rate limit and over it', 2, 1, 100, true],
    ['over both', 1, 50, 20, false],
  ])('%s: the same answers, counters and journal as the two steps', async (label, points, amount, allowance, j) => {
    for (let i = 0; i < 4; i++) {
      const { separate, combined } = await both(label.replace(/\W+/g, '-'), points, amount, allowance, j);
      expect(combined).toEqual(separate);
    }
  });

  test('a call over the rate limit reserves nothing and reports the counter; the window is shared with consume', async () => {
    const key = `${prefix}quota:shared`;
    await limiter.consume('shared', 2);
    const window = limiter.sharedWindow('shared', 2)!;
    const first = await counters.reserveWithinRateLimit(window, key, 7, 100, seedOf(10));
    expect(first).toEqual({
      rate: { consumed: 2, msBeforeNext: expect.any(Number) },
      allowed: true,
      reservation: { ok: true, used: 17 },
    });
    const second = await counters.reserveWithinRateLimit(window, key, 7, 100, seedOf(10));
    expect(second).toMatchObject({ allowed: false, used: 17, rate: { consumed: 3 } });
    expect(limiter.decide(2, second.rate)).toEqual({
      allowed: false,
      limit: 2,
      remaining: 0,
      retryAfterSeconds: expect.any(Number),
    });
    expect(limiter.decide(2, second.rate).retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(await redis.get(key)).toBe('17');
    expect((await limiter.consume('shared', 2)).allowed).toBe(false);
  });

  test('a missing counter is seeded once, and the call is counted in the window once', async () => {
    const seed = seedOf(40);
    const window = limiter.sharedWindow('seeded', 10)!;
    const result = await counters.reserveWithinRateLimit(window, `${prefix}quota:seeded`, 2, 100, seed);
    expect(seed).toHaveBeenCalledTimes(1);
    expect(result).toMatchObject({ allowed: true, rate: { consumed: 1 }, reservation: { ok: true, used: 42 } });
    expect(await redis.get(window.key)).toBe('1');
  });

  test('without Redis there is no shared window (the pipeline keeps two steps)', () => {
    expect(new RateLimiterService(null, { redisPrefix: prefix } as AppConfig).sharedWindow('k', 5)).toBeNull();
  });
});
