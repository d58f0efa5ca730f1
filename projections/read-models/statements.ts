import type { Queryable } from '../../src/database/database.js';
import { metadataOf, occurredAt } from '../../src/event-store/domain-event.js';
import type { RecordedEvent } from '../../src/event-store/event-store.port.js';
import type { LedgerAdjusted, StatementIssued } from '../../src/metering/statements/statement.events.js';

export const STATEMENT_EVENT_TYPES = ['StatementIssued', 'LedgerAdjusted'];

/**
 * SQL for where a charge is booked, given its month (`month`), its time (`at`, timestamptz) and whether that month
 * was closed before it (`closed`): the open month (see lateChargeMonth), or its own month.
 */
export const bookedMonthSql = (month: string, at: string, closed: string) =>
  `CASE WHEN ${closed} THEN greatest(to_char(${at} AT TIME ZONE 'UTC', 'YYYY-MM'),
     to_char((${month} || '-01')::date + interval '1 month', 'YYYY-MM')) ELSE ${month} END`;

/**
 * A statement closes its month: the statement is kept as issued, and the month's charges after the position it
 * covers (appended between the close's read and its append) become late charges, booked in the open month.
 */
async function applyStatementIssued(tx: Queryable, event: RecordedEvent): Promise<void> {
  const d = event.data as unknown as StatementIssued['data'];
  await tx.query(
    `INSERT INTO statements (org_id, month, commit_position, prepare_position, covers_commit, covers_prepare,
       issued_at, statement)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb) ON CONFLICT DO NOTHING`,
    [
      d.org_id,
      d.month,
      event.position.commit.toString(),
      event.position.prepare.toString(),
      d.covers_position?.commit ?? null,
      d.covers_position?.prepare ?? null,
      occurredAt(event),
      JSON.stringify(d),
    ],
  );
  await tx.query(
    `UPDATE ledger_entries SET corrects_month = billing_month,
       billing_month = ${bookedMonthSql('billing_month', 'occurred_at', 'true')}
     WHERE org_id = $1 AND billing_month = $2 AND corrects_month IS NULL
       AND ($3::bigint IS NULL OR (commit_position, prepare_position) > ($3::bigint, $4::bigint))`,
    [d.org_id, d.month, d.covers_position?.commit ?? null, d.covers_position?.prepare ?? null],
  );
}

async function applyLedgerAdjusted(tx: Queryable, event: RecordedEvent): Promise<void> {
  const d = event.data as unknown as LedgerAdjusted['data'];
  await tx.query(
    `INSERT INTO ledger_adjustments (commit_position, prepare_position, adjustment_id, org_id, month, corrects_month,
       credits, reason, actor, occurred_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10) ON CONFLICT DO NOTHING`,
    [
      event.position.commit.toString(),
      event.position.prepare.toString(),
      d.adjustment_id,
      d.org_id,
      d.month,
      d.corrects_month,
      d.credits,
      d.reason,
      JSON.stringify(metadataOf(event).actor),
      occurredAt(event),
    ],
  );
}

export async function applyStatementEvent(tx: Queryable, event: RecordedEvent): Promise<void> {
  if (event.type === 'StatementIssued') return applyStatementIssued(tx, event);
  if (event.type === 'LedgerAdjusted') return applyLedgerAdjusted(tx, event);
}
