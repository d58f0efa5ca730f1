import type { Queryable } from '../../database/database.js';
import { type From, type RecordedEvent, START } from '../event-store.port.js';
import { EVENT_COLUMNS, type EventRow, rowToRecordedEvent } from './row-to-recorded-event.js';

/**
 * The horizon of the global order for this statement's snapshot: the oldest transaction that may still commit events
 * of this schema (event_store_horizon, migration 006). A long transaction that writes no events (an index rebuild,
 * another application's batch) does not hold the readers back.
 */
const HORIZON = '(SELECT event_store_horizon(pg_current_snapshot()))';

/** Events after `from` whose transactions precede the horizon: no event can later appear before the last one. */
const SAFELY_COMMITTED = `transaction_id < ${HORIZON}`;

export async function readAll(db: Queryable, from: From, maxCount: number): Promise<RecordedEvent[]> {
  const after = from === START ? { commit: -1n, prepare: -1n } : from;
  const result = await db.query<EventRow>({
    name: 'event_store_read_all',
    text: `SELECT ${EVENT_COLUMNS} FROM events
     WHERE (transaction_id, global_position) > ($1::bigint, $2::bigint) AND ${SAFELY_COMMITTED}
     ORDER BY transaction_id, global_position
     LIMIT $3`,
    values: [after.commit.toString(), after.prepare.toString(), maxCount],
  });
  return result.rows.map(rowToRecordedEvent);
}

export async function readHeadPosition(db: Queryable): Promise<From> {
  const result = await db.query<{ transaction_id: string; global_position: string }>(
    `SELECT transaction_id, global_position FROM events WHERE ${SAFELY_COMMITTED}
     ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
  );
  const row = result.rows[0];
  return row ? { commit: BigInt(row.transaction_id), prepare: BigInt(row.global_position) } : START;
}
