import { type Database, quoteIdent } from '../../database/database.js';
import type { Actor } from '../../event-store/domain-event.js';
import type { From } from '../../event-store/event-store.port.js';
import type { ReadModelProgress } from '../../event-store/read-model-progress.port.js';
import type { KeyEnvironment } from '../../keys/events/key.events.js';
import { toScaled } from '../ledger/decimal.js';
import { type StatementEntry, lateChargeActor, lateChargeReason } from './statement-summary.js';

type Row = Record<string, unknown>;

const position = (r: Row) => ({
  commit: BigInt(String(r.commit_position)),
  prepare: BigInt(String(r.prepare_position)),
});

function chargeEntry(r: Row): StatementEntry {
  const correctsMonth = r.corrects_month === null ? null : String(r.corrects_month);
  return {
    kind: correctsMonth ? 'late_charge' : 'charge',
    reference: String(r.charge_id),
    position: position(r),
    environment: r.key_environment as KeyEnvironment,
    credits: toScaled(String(r.credits)) ?? 0n,
    projectId: String(r.project_id),
    keyId: String(r.key_id),
    operation: String(r.operation),
    correctsMonth,
    reason: correctsMonth ? lateChargeReason(String(r.operation), correctsMonth) : '',
    actor: lateChargeActor(String(r.key_id)),
    occurredAt: (r.occurred_at as Date).toISOString(),
  };
}

function correctionEntry(r: Row): StatementEntry {
  return {
    kind: 'correction',
    reference: String(r.adjustment_id),
    position: position(r),
    environment: 'live',
    credits: toScaled(String(r.credits)) ?? 0n,
    projectId: null,
    keyId: null,
    operation: null,
    correctsMonth: String(r.corrects_month),
    reason: String(r.reason),
    actor: r.actor as Actor,
    occurredAt: (r.occurred_at as Date).toISOString(),
  };
}

/**
 * Everything the read models book in an organization's month (its charges, late charges of closed months, operators'
 * corrections), read in one snapshot with the read models' checkpoint: the entries are exactly the events up to it.
 */
export async function readMonthEntries(
  db: Database,
  readModels: Pick<ReadModelProgress, 'checkpointIn'>,
  orgId: string,
  month: string,
): Promise<{ checkpoint: From; entries: StatementEntry[] }> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(`SET LOCAL search_path TO ${quoteIdent(db.schema)}`);
    const checkpoint = await readModels.checkpointIn(client);
    const charges = await client.query(
      `SELECT commit_position, prepare_position, charge_id, project_id, key_id, key_environment, operation, credits,
         corrects_month, occurred_at
       FROM ledger_entries WHERE org_id = $1 AND billing_month = $2`,
      [orgId, month],
    );
    const corrections = await client.query(
      `SELECT commit_position, prepare_position, adjustment_id, corrects_month, credits, reason, actor, occurred_at
       FROM ledger_adjustments WHERE org_id = $1 AND month = $2`,
      [orgId, month],
    );
    await client.query('COMMIT');
    return { checkpoint, entries: [...charges.rows.map(chargeEntry), ...corrections.rows.map(correctionEntry)] };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
