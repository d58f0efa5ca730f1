import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { ReadModelProgress } from '../event-store/read-model-progress.port.js';
import { Database } from '../database/database.js';
import { hashApiKey, parseApiKey } from './api-key-secret.js';
import type { ProjectBudgetSet } from '../projects/events/project.events.js';
import {
  type KeyBudgetSet,
  type KeyEnvironment,
  type KeyRevoked,
  type KeyScope,
  effectiveScopes,
} from './events/key.events.js';
import { KeyCacheInvalidation } from './key-cache-invalidation.js';
import type { KeyRecord } from './key-record.js';

const NOT_FOUND = 'not_found' as const;

/**
 * Resolves a presented API key: format check (no lookup for malformed keys), SHA-256, then a per-node cache in
 * front of the key read model. Revocations evict the cache on every node before the revoking request answers; a
 * budget set on the key or its project evicts it on each node as its projector applies the event (on the node that
 * set it, before the request answers).
 * Unknown hashes are cached too: a 190-bit secret that does not exist now cannot be created later.
 */
@Injectable()
export class KeyLookupService {
  private readonly cache = new LRUCache<string, KeyRecord | typeof NOT_FOUND>({ max: 50_000, ttl: 5 * 60_000 });

  constructor(
    private readonly db: Database,
    invalidation: KeyCacheInvalidation,
    projections: ReadModelProgress,
  ) {
    invalidation.onEvict((hash) => this.cache.delete(hash));
    // A revocation made by another process (the operator CLI) reaches this node through its projector.
    projections.onEvents((events) => {
      for (const event of events) {
        if (event.type === 'KeyRevoked') this.evictKeyId((event.data as KeyRevoked['data']).key_id);
        if (event.type === 'KeyBudgetSet') this.evictKeyId((event.data as KeyBudgetSet['data']).key_id);
        if (event.type === 'ProjectBudgetSet') this.evictProject((event.data as ProjectBudgetSet['data']).project_id);
      }
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

  private evictProject(projectId: string): void {
    for (const [hash, record] of this.cache.entries()) {
      if (record !== NOT_FOUND && record.projectId === projectId) this.cache.delete(hash);
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
      key_budget: string | null;
      project_budget: string | null;
    }>(
      `SELECT k.key_id, k.org_id, k.project_id, k.environment, k.scopes, k.depth_limit, k.status,
         k.monthly_credit_limit AS key_budget, p.monthly_credit_limit AS project_budget
       FROM api_keys k LEFT JOIN projects p ON p.project_id = k.project_id WHERE k.key_hash = $1`,
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
      budgets: {
        key: row.key_budget === null ? null : Number(row.key_budget),
        project: row.project_budget === null ? null : Number(row.project_budget),
      },
    };
  }
}
