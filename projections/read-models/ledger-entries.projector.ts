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

/**
 * One INSERT for any number of events, rows in event order (of two events with one charge_id, the first is kept).
 * The events go as one JSON parameter that PostgreSQL takes apart: cheaper on both sides than an array per column.
 */
async function insertEntries(tx: Queryable, events: readonly RecordedEvent[]): Promise<void> {
  const rows = events.map((event) => ({
    c: event.position.commit.toString(),
    p: event.position.prepare.toString(),
    at: occurredAt(event).toISOString(),
    d: event.data,
  }));
  // Partial data: events written before channel and pricing existed lack them (NULL); counts defaults to {}.
  await tx.query({
    name: 'ledger_entries_insert_many',
    text: `INSERT INTO ledger_entries (commit_position, prepare_position, charge_id, org_id, project_id, key_id,
       key_environment, operation, channel, depth, credits, request_id, idempotency_key, billing_month, occurred_at,
       counts, pricing)
     SELECT (e->>'c')::bigint, (e->>'p')::bigint, e->'d'->>'charge_id', (e->'d'->>'org_id')::uuid,
       (e->'d'->>'project_id')::uuid, (e->'d'->>'key_id')::uuid, e->'d'->>'key_environment', e->'d'->>'operation',
       e->'d'->>'channel', e->'d'->>'depth', (e->'d'->>'credits')::numeric, e->'d'->>'request_id',
       e->'d'->>'idempotency_key', e->'d'->>'billing_month', (e->>'at')::timestamptz,
       coalesce(nullif(e->'d'->'counts', 'null'::jsonb), '{}'::jsonb), nullif(e->'d'->'pricing', 'null'::jsonb)
     FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(e, ord)
     ORDER BY ord
     ON CONFLICT DO NOTHING`,
    values: [JSON.stringify(rows)],
  });
}
