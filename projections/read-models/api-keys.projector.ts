import type { Queryable } from '../../src/database/database.js';
import { metadataOf, occurredAt } from '../../src/event-store/domain-event.js';
import type { RecordedEvent } from '../../src/event-store/event-store.port.js';
import type { KeyBudgetSet, KeyCreated, KeyRenamed, KeyRevoked } from '../../src/keys/events/key.events.js';
import type { CreditsCharged } from '../../src/metering/events/credits-charged.event.js';
import type { Projector } from '../projector.js';

/** The key listing, and the hash lookup the API-key guard reads. */
export const apiKeysProjector: Projector = {
  name: 'api_keys',
  tables: ['api_keys'],
  eventTypes: ['KeyCreated', 'KeyRenamed', 'KeyRevoked', 'KeyBudgetSet', 'CreditsCharged'],
  /** A run of CreditsCharged: one UPDATE with each key's latest use; any other run, event by event. */
  async applyMany(tx: Queryable, events: readonly RecordedEvent[]) {
    if (!events.every((event) => event.type === 'CreditsCharged')) {
      for (const event of events) await apiKeysProjector.apply(tx, event);
      return;
    }
    await tx.query({
      name: 'api_keys_last_used_many',
      text: `UPDATE api_keys SET last_used_at = GREATEST(api_keys.last_used_at, used.at)
       FROM (SELECT key_id, max(at) AS at FROM unnest($1::uuid[], $2::timestamptz[]) AS e(key_id, at) GROUP BY key_id)
         AS used
       WHERE api_keys.key_id = used.key_id`,
      values: [
        events.map((event) => (event.data as unknown as CreditsCharged['data']).key_id),
        events.map((event) => occurredAt(event).toISOString()),
      ],
    });
  },
  async apply(tx: Queryable, event: RecordedEvent) {
    const at = occurredAt(event);
    switch (event.type) {
      case 'KeyCreated': {
        const d = event.data as unknown as KeyCreated['data'];
        const actor = metadataOf(event).actor;
        await tx.query(
          `INSERT INTO api_keys (key_id, org_id, project_id, name, environment, prefix, key_hash, scopes, depth_limit,
             status, created_by, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'active', $10, $11, $11) ON CONFLICT DO NOTHING`,
          [
            d.key_id,
            d.org_id,
            d.project_id,
            d.name,
            d.environment,
            d.prefix,
            d.key_hash,
            d.scopes,
            d.depth_limit,
            `${actor.type}:${actor.id}`,
            at,
          ],
        );
        return;
      }
      case 'KeyRenamed': {
        const d = event.data as unknown as KeyRenamed['data'];
        await tx.query('UPDATE api_keys SET name = $2, updated_at = $3 WHERE key_id = $1', [d.key_id, d.name, at]);
        return;
      }
      case 'KeyRevoked': {
        const d = event.data as unknown as KeyRevoked['data'];
        await tx.query(
          `UPDATE api_keys SET status = 'revoked', revoked_at = $2, updated_at = $2 WHERE key_id = $1 AND status <> 'revoked'`,
          [d.key_id, at],
        );
        return;
      }
      case 'KeyBudgetSet': {
        const d = event.data as unknown as KeyBudgetSet['data'];
        await tx.query('UPDATE api_keys SET monthly_credit_limit = $2, updated_at = $3 WHERE key_id = $1', [
          d.key_id,
          d.monthly_credit_limit,
          at,
        ]);
        return;
      }
      case 'CreditsCharged': {
        const d = event.data as unknown as CreditsCharged['data'];
        await tx.query('UPDATE api_keys SET last_used_at = GREATEST(last_used_at, $2) WHERE key_id = $1', [
          d.key_id,
          at,
        ]);
        return;
      }
    }
  },
};
