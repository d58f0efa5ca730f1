import type { RedisClient } from '../../redis/redis.module.js';
import {
  COMPLETED_TTL_SECONDS,
  type Claim,
  type ClaimOwner,
  type IdempotencyRecord,
  type IdempotencyStore,
  RUNNING_TTL_SECONDS,
  type StoredResponse,
  decideClaim,
} from './idempotency.store.js';
import { runScript } from '../../redis/run-script.js';

/** SET the record only if it still holds ARGV[1]. */
const COMPARE_AND_SET = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1`;

/** DEL the record only if it still holds ARGV[1]. */
const COMPARE_AND_DELETE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`;

export class RedisIdempotencyStore implements IdempotencyStore {
  constructor(private readonly redis: RedisClient) {}

  async claim(key: string, fingerprint: string, owner: ClaimOwner): Promise<Claim> {
    const record: IdempotencyRecord = { fingerprint, ...owner };
    const set = await this.redis.set(key, JSON.stringify(record), {
      condition: 'NX',
      expiration: { type: 'EX', value: RUNNING_TTL_SECONDS },
    });
    if (set === 'OK') return { state: 'claimed' };
    const existing = await this.redis.get(key);
    if (existing === null) return this.claim(key, fingerprint, owner);
    return decideClaim(JSON.parse(existing) as IdempotencyRecord, fingerprint, existing);
  }

  async prepare(key: string, fingerprint: string, owner: ClaimOwner, response: StoredResponse): Promise<void> {
    // Kept as long as a completed record: once its charge is durable, it is what a retry replays.
    const record: IdempotencyRecord = { fingerprint, ...owner, pending: response };
    await this.redis.set(key, JSON.stringify(record), { expiration: { type: 'EX', value: COMPLETED_TTL_SECONDS } });
  }

  async complete(key: string, fingerprint: string, response: StoredResponse): Promise<void> {
    const record: IdempotencyRecord = { fingerprint, response };
    await this.redis.set(key, JSON.stringify(record), { expiration: { type: 'EX', value: COMPLETED_TTL_SECONDS } });
  }

  async takeOver(key: string, raw: string, fingerprint: string, owner: ClaimOwner): Promise<boolean> {
    const record: IdempotencyRecord = { fingerprint, ...owner };
    const replaced = await runScript(this.redis, COMPARE_AND_SET, {
      keys: [key],
      arguments: [raw, JSON.stringify(record), String(RUNNING_TTL_SECONDS)],
    });
    return replaced === 1;
  }

  async release(key: string): Promise<void> {
    await this.redis.del(key);
  }

  async abandon(key: string, fingerprint: string, owner: ClaimOwner): Promise<void> {
    const record: IdempotencyRecord = { fingerprint, ...owner };
    await runScript(this.redis, COMPARE_AND_DELETE, { keys: [key], arguments: [JSON.stringify(record)] });
  }
}
