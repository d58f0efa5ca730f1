import type { Queryable } from '../../database/database.js';
import { type From, type RecordedEvent, START } from '../event-store.port.js';
import { EVENT_COLUMNS, type EventRow, rowToRecordedEvent } from './row-to-recorded-event.js';

/**
 * Events after `from` whose transactions are older than every transaction still running: those are committed
 * (or aborted) for good, so no event can later appear before the last one returned here.
 */
const SAFELY_COMMITTED = 'transaction_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint';

export async function readAll(db: Queryable, from: From, maxCount: number): Promise<RecordedEvent[]> {
  const after = from === START ? { commit: -1n, prepare: -1n } : from;
  const result = await db.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM events
     WHERE (transaction_id, global_position) > ($1::bigint, $2::bigint) AND ${SAFELY_COMMITTED}
     ORDER BY transaction_id, global_position
     LIMIT $3`,
    [after.commit.toString(), after.prepare.toString(), maxCount],
  );
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
