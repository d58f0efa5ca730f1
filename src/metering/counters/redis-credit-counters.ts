import type { RedisClient } from '../../redis/redis.module.js';
import { COUNTER_TTL_SECONDS, type CreditCounters, type Reservation, type Seed } from './credit-counters.js';

// Each script runs atomically in Redis. A missing counter answers -1 ("seed me") instead of starting from zero.
const RESERVE = `
local v = redis.call('GET', KEYS[1])
if not v then return {-1, 0} end
v = tonumber(v)
if v + tonumber(ARGV[1]) > tonumber(ARGV[2]) then return {0, v} end
return {1, redis.call('INCRBY', KEYS[1], ARGV[1])}`;

const ADJUST = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1, 0} end
return {1, redis.call('INCRBY', KEYS[1], ARGV[1])}`;

/** Counters shared by every node. */
export class RedisCreditCounters implements CreditCounters {
  constructor(private readonly redis: RedisClient) {}

  async reserve(key: string, amount: number, limit: number, seed: Seed): Promise<Reservation> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const [status, value] = (await this.redis.eval(RESERVE, {
        keys: [key],
        arguments: [String(amount), String(limit)],
      })) as [number, number];
      if (status === 1) return { ok: true, used: value };
      if (status === 0) return { ok: false, used: value };
      await this.seed(key, seed);
    }
    throw new Error(`counter ${key} could not be seeded`);
  }

  async adjust(key: string, delta: number): Promise<number | null> {
    const [status, value] = (await this.redis.eval(ADJUST, { keys: [key], arguments: [String(delta)] })) as [
      number,
      number,
    ];
    return status === 1 ? value : null;
  }

  async read(key: string, seed: Seed): Promise<number> {
    const value = await this.redis.get(key);
    if (value !== null) return Number(value);
    await this.seed(key, seed);
    return Number((await this.redis.get(key)) ?? 0);
  }

  async increment(key: string, amount: number, seed: Seed): Promise<number> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const [status, value] = (await this.redis.eval(ADJUST, { keys: [key], arguments: [String(amount)] })) as [
        number,
        number,
      ];
      if (status === 1) return value;
      await this.seed(key, seed);
    }
    throw new Error(`counter ${key} could not be seeded`);
  }

  /** SET NX: of several nodes seeding at once, the first value wins and the others keep it. */
  private async seed(key: string, seed: Seed): Promise<void> {
    const value = await seed();
    await this.redis.set(key, String(Math.round(value)), {
      condition: 'NX',
      expiration: { type: 'EX', value: COUNTER_TTL_SECONDS },
    });
  }
}
