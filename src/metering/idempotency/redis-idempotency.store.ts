import type { RedisClient } from '../../redis/redis.module.js';
import {
  COMPLETED_TTL_SECONDS,
  type Claim,
  type IdempotencyRecord,
  type IdempotencyStore,
  RUNNING_TTL_SECONDS,
  type StoredResponse,
  decideClaim,
} from './idempotency.store.js';

export class RedisIdempotencyStore implements IdempotencyStore {
  constructor(private readonly redis: RedisClient) {}

  async claim(key: string, fingerprint: string): Promise<Claim> {
    const record: IdempotencyRecord = { fingerprint };
    const set = await this.redis.set(key, JSON.stringify(record), {
      condition: 'NX',
      expiration: { type: 'EX', value: RUNNING_TTL_SECONDS },
    });
    if (set === 'OK') return { state: 'claimed' };
    const existing = await this.redis.get(key);
    if (existing === null) return this.claim(key, fingerprint);
    return decideClaim(JSON.parse(existing) as IdempotencyRecord, fingerprint);
  }

  async complete(key: string, fingerprint: string, response: StoredResponse): Promise<void> {
    const record: IdempotencyRecord = { fingerprint, response };
    await this.redis.set(key, JSON.stringify(record), { expiration: { type: 'EX', value: COMPLETED_TTL_SECONDS } });
  }

  async release(key: string): Promise<void> {
    await this.redis.del(key);
  }
}
