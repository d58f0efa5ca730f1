import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { ProjectionRunner } from '../../projections/projection-runner.js';
import { Database } from '../database/database.js';
import { hashApiKey, parseApiKey } from './api-key-secret.js';
import { type KeyEnvironment, type KeyRevoked, type KeyScope, effectiveScopes } from './events/key.events.js';
import { KeyCacheInvalidation } from './key-cache-invalidation.js';
import type { KeyRecord } from './key-record.js';

const NOT_FOUND = 'not_found' as const;

/**
 * Resolves a presented API key: format check (no lookup for malformed keys), SHA-256, then a per-node cache in
 * front of the key read model. Revocations evict the cache on every node before the revoking request answers.
 * Unknown hashes are cached too: a 190-bit secret that does not exist now cannot be created later.
 */
@Injectable()
export class KeyLookupService {
  private readonly cache = new LRUCache<string, KeyRecord | typeof NOT_FOUND>({ max: 50_000, ttl: 5 * 60_000 });

  constructor(
    private readonly db: Database,
    invalidation: KeyCacheInvalidation,
    projections: ProjectionRunner,
  ) {
    invalidation.onEvict((hash) => this.cache.delete(hash));
    // A revocation made by another process (the operator CLI) reaches this node through its projector.
    projections.onEvents((events) => {
      for (const event of events)
        if (event.type === 'KeyRevoked') this.evictKeyId((event.data as KeyRevoked['data']).key_id);
    });
  }

  async lookup(plaintext: string): Promise<KeyRecord | null> {
    if (!parseApiKey(plaintext)) return null;
    const hash = hashApiKey(plaintext);
    const cached = this.cache.get(hash);
    if (cached !== undefined) return cached === NOT_FOUND ? null : cached;
    const record = await this.load(hash);
    this.cache.set(hash, record ?? NOT_FOUND);
    return record;
  }

  private evictKeyId(keyId: string): void {
    for (const [hash, record] of this.cache.entries()) {
      if (record !== NOT_FOUND && record.keyId === keyId) this.cache.delete(hash);
    }
  }

  private async load(hash: string): Promise<KeyRecord | null> {
    const result = await this.db.query<{
      key_id: string;
      org_id: string;
      project_id: string;
      environment: KeyEnvironment;
      scopes: KeyScope[];
      depth_limit: 'basic' | null;
      status: 'active' | 'revoked';
    }>(
      'SELECT key_id, org_id, project_id, environment, scopes, depth_limit, status FROM api_keys WHERE key_hash = $1',
      [hash],
    );
    const row = result.rows[0];
    if (!row) return null;
    return {
      keyId: row.key_id,
      orgId: row.org_id,
      projectId: row.project_id,
      environment: row.environment,
      scopes: effectiveScopes(row.scopes),
      depthLimit: row.depth_limit,
      status: row.status,
    };
  }
}
