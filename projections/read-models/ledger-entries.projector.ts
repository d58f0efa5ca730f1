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
  applyMany: (tx, events) => insertEntries(tx, events),
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

/** One INSERT for any number of events, rows in event order (of two events with one charge_id, the first is kept). */
async function insertEntries(tx: Queryable, events: readonly RecordedEvent[]): Promise<void> {
  // Partial: events written before channel and pricing existed lack them.
  const rows = events.map((event) => ({ event, d: event.data as unknown as Partial<CreditsCharged['data']> }));
  await tx.query(
    `INSERT INTO ledger_entries (commit_position, prepare_position, charge_id, org_id, project_id, key_id,
       key_environment, operation, channel, depth, credits, request_id, idempotency_key, billing_month, occurred_at,
       counts, pricing)
     SELECT commit_position, prepare_position, charge_id, org_id, project_id, key_id, key_environment, operation,
       channel, depth, credits, request_id, idempotency_key, billing_month, occurred_at, counts::jsonb, pricing::jsonb
     FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::uuid[], $5::uuid[], $6::uuid[], $7::text[], $8::text[],
       $9::text[], $10::text[], $11::numeric[], $12::text[], $13::text[], $14::text[], $15::timestamptz[], $16::text[],
       $17::text[])
       WITH ORDINALITY AS e(commit_position, prepare_position, charge_id, org_id, project_id, key_id, key_environment,
         operation, channel, depth, credits, request_id, idempotency_key, billing_month, occurred_at, counts, pricing,
         ord)
     ORDER BY ord
     ON CONFLICT DO NOTHING`,
    [
      rows.map(({ event }) => event.position.commit.toString()),
      rows.map(({ event }) => event.position.prepare.toString()),
      rows.map(({ d }) => d.charge_id),
      rows.map(({ d }) => d.org_id),
      rows.map(({ d }) => d.project_id),
      rows.map(({ d }) => d.key_id),
      rows.map(({ d }) => d.key_environment),
      rows.map(({ d }) => d.operation),
      rows.map(({ d }) => d.channel ?? null),
      rows.map(({ d }) => d.depth ?? null),
      rows.map(({ d }) => d.credits),
      rows.map(({ d }) => d.request_id),
      rows.map(({ d }) => d.idempotency_key ?? null),
      rows.map(({ d }) => d.billing_month),
      rows.map(({ event }) => occurredAt(event).toISOString()),
      rows.map(({ d }) => JSON.stringify(d.counts ?? {})),
      rows.map(({ d }) => (d.pricing ? JSON.stringify(d.pricing) : null)),
    ],
  );
}
