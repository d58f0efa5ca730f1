import type { Queryable } from '../../src/database/database.js';
import { occurredAt } from '../../src/event-store/domain-event.js';
import type { RecordedEvent } from '../../src/event-store/event-store.port.js';
import type { CreditsCharged } from '../../src/metering/events/credits-charged.event.js';
import type { Projector } from '../projector.js';

/**
 * The ledger itself: one row per CreditsCharged event, keyed by the event's position (the order finance and audit
 * read it in). A second event with a charge_id already in the ledger adds no row (the projection never stops on
 * it); `ledger verify` reports it, since the totals do count it.
 */
export const ledgerEntriesProjector: Projector = {
  name: 'ledger_entries',
  tables: ['ledger_entries'],
  eventTypes: ['CreditsCharged'],
  async apply(tx: Queryable, event: RecordedEvent) {
    // Partial: events written before channel and pricing existed lack them.
    const d = event.data as unknown as Partial<CreditsCharged['data']>;
    await tx.query(
      `INSERT INTO ledger_entries (commit_position, prepare_position, charge_id, org_id, project_id, key_id,
         key_environment, operation, channel, depth, credits, request_id, idempotency_key, billing_month, occurred_at,
         counts, pricing)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::jsonb, $17::jsonb)
       ON CONFLICT DO NOTHING`,
      [
        event.position.commit.toString(),
        event.position.prepare.toString(),
        d.charge_id,
        d.org_id,
        d.project_id,
        d.key_id,
        d.key_environment,
        d.operation,
        d.channel ?? null,
        d.depth ?? null,
        d.credits,
        d.request_id,
        d.idempotency_key ?? null,
        d.billing_month,
        occurredAt(event),
        JSON.stringify(d.counts ?? {}),
        d.pricing ? JSON.stringify(d.pricing) : null,
      ],
    );
  },
};
