import type { Queryable } from '../../src/database/database.js';
import { occurredAt } from '../../src/event-store/domain-event.js';
import type { RecordedEvent } from '../../src/event-store/event-store.port.js';
import type { CreditsCharged } from '../../src/metering/events/credits-charged.event.js';
import type { Projector } from '../projector.js';
import { NAME_EVENT_TYPES, applyNameEvent } from './ledger-names.js';
import { STATEMENT_EVENT_TYPES, applyStatementEvent, bookedMonthSql } from './statements.js';

/**
 * The ledger itself: one row per CreditsCharged event, keyed by the event's position (the order finance and audit
 * read it in), with the key and project names current at that position (from ledger_names, which this projector
 * keeps from the naming events), so a later rename leaves past entries as they were charged. A second event with a
 * charge_id already in the ledger adds no row (the projection never stops on it); `ledger verify` reports it, since
 * the totals do count it.
 * A charge of a month already closed (a statement issued for it) is booked in the open month, as an adjustment that
 * names the month it corrects (statements.ts).
 */
export const ledgerEntriesProjector: Projector = {
  name: 'ledger_entries',
  tables: ['ledger_entries', 'ledger_names', 'statements', 'ledger_adjustments'],
  eventTypes: ['CreditsCharged', ...NAME_EVENT_TYPES, ...STATEMENT_EVENT_TYPES],
  async applyMany(tx, events) {
    // A run holds events of one type; names do not change within a run of charges.
    if (events[0]?.type === 'CreditsCharged') return insertEntries(tx, events);
    for (const event of events) await ledgerEntriesProjector.apply(tx, event);
  },
  async apply(tx: Queryable, event: RecordedEvent) {
    if (STATEMENT_EVENT_TYPES.includes(event.type)) return applyStatementEvent(tx, event);
    if (event.type !== 'CreditsCharged') return applyNameEvent(tx, event);
    // Partial: events written before channel and pricing existed lack them.
    const d = event.data as unknown as Partial<CreditsCharged['data']>;
    await tx.query(
      `INSERT INTO ledger_entries (commit_position, prepare_position, charge_id, org_id, project_id, key_id,
         key_environment, operation, channel, depth, credits, request_id, idempotency_key, billing_month, occurred_at,
         counts, pricing, key_name, project_name, corrects_month, budget_leases)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
         ${bookedMonthSql('$14::text', '$15::timestamptz', 'closed')}, $15, $16::jsonb, $17::jsonb,
         (SELECT name FROM ledger_names WHERE kind = 'key' AND id = $6::uuid),
         (SELECT name FROM ledger_names WHERE kind = 'project' AND id = $5::uuid),
         CASE WHEN closed THEN $14::text END, $18::text[]
       FROM (SELECT EXISTS (SELECT 1 FROM statements WHERE org_id = $4::uuid AND month = $14::text) AS closed) AS s
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
        d.budget_leases ?? null,
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
       counts, pricing, key_name, project_name, corrects_month, budget_leases)
     SELECT (e->>'c')::bigint, (e->>'p')::bigint, e->'d'->>'charge_id', (e->'d'->>'org_id')::uuid,
       (e->'d'->>'project_id')::uuid, (e->'d'->>'key_id')::uuid, e->'d'->>'key_environment', e->'d'->>'operation',
       e->'d'->>'channel', e->'d'->>'depth', (e->'d'->>'credits')::numeric, e->'d'->>'request_id',
       e->'d'->>'idempotency_key',
       ${bookedMonthSql("(e->'d'->>'billing_month')", "(e->>'at')::timestamptz", 's.org_id IS NOT NULL')},
       (e->>'at')::timestamptz,
       coalesce(nullif(e->'d'->'counts', 'null'::jsonb), '{}'::jsonb), nullif(e->'d'->'pricing', 'null'::jsonb),
       k.name, p.name, CASE WHEN s.org_id IS NOT NULL THEN e->'d'->>'billing_month' END,
       CASE WHEN jsonb_typeof(e->'d'->'budget_leases') = 'array'
         THEN ARRAY(SELECT jsonb_array_elements_text(e->'d'->'budget_leases')) END
     FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(e, ord)
     LEFT JOIN ledger_names k ON k.kind = 'key' AND k.id = (e->'d'->>'key_id')::uuid
     LEFT JOIN ledger_names p ON p.kind = 'project' AND p.id = (e->'d'->>'project_id')::uuid
     LEFT JOIN statements s ON s.org_id = (e->'d'->>'org_id')::uuid AND s.month = e->'d'->>'billing_month'
     ORDER BY ord
     ON CONFLICT DO NOTHING`,
    values: [JSON.stringify(rows)],
  });
}
