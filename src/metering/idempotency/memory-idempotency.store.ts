import { LRUCache } from 'lru-cache';
import {
  COMPLETED_TTL_SECONDS,
  type Claim,
  type IdempotencyRecord,
  type IdempotencyStore,
  RUNNING_TTL_SECONDS,
  type StoredResponse,
  decideClaim,
} from './idempotency.store.js';

export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly records = new LRUCache<string, IdempotencyRecord>({ max: 100_000, ttlAutopurge: false });

  async claim(key: string, fingerprint: string): Promise<Claim> {
    const existing = this.records.get(key);
    if (existing) return decideClaim(existing, fingerprint);
    this.records.set(key, { fingerprint }, { ttl: RUNNING_TTL_SECONDS * 1000 });
    return { state: 'claimed' };
  }

  async complete(key: string, fingerprint: string, response: StoredResponse): Promise<void> {
    this.records.set(key, { fingerprint, response }, { ttl: COMPLETED_TTL_SECONDS * 1000 });
  }

  async release(key: string): Promise<void> {
    this.records.delete(key);
  }
}
