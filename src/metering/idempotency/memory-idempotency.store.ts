import { LRUCache } from 'lru-cache';
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

export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly records = new LRUCache<string, IdempotencyRecord>({ max: 100_000, ttlAutopurge: false });

  async claim(key: string, fingerprint: string, owner: ClaimOwner): Promise<Claim> {
    const existing = this.records.get(key);
    if (existing) return decideClaim(existing, fingerprint, JSON.stringify(existing));
    this.records.set(key, { fingerprint, ...owner }, { ttl: RUNNING_TTL_SECONDS * 1000 });
    return { state: 'claimed' };
  }

  async prepare(key: string, fingerprint: string, owner: ClaimOwner, response: StoredResponse): Promise<void> {
    this.records.set(key, { fingerprint, ...owner, pending: response }, { ttl: COMPLETED_TTL_SECONDS * 1000 });
  }

  async complete(key: string, fingerprint: string, response: StoredResponse): Promise<void> {
    this.records.set(key, { fingerprint, response }, { ttl: COMPLETED_TTL_SECONDS * 1000 });
  }

  async takeOver(key: string, raw: string, fingerprint: string, owner: ClaimOwner): Promise<boolean> {
    const existing = this.records.get(key);
    if (!existing || JSON.stringify(existing) !== raw) return false;
    this.records.set(key, { fingerprint, ...owner }, { ttl: RUNNING_TTL_SECONDS * 1000 });
    return true;
  }

  async release(key: string): Promise<void> {
    this.records.delete(key);
  }
}
