import type { Queryable } from '../../database/database.js';
import { type From, type RecordedEvent, START } from '../event-store.port.js';
import { EVENT_COLUMNS, type EventRow, rowToRecordedEvent } from './row-to-recorded-event.js';

/**
 * The horizon of the global order: the oldest transaction, among those running when this statement's snapshot was
 * taken, that may still commit events. Event writers hold the schema's append lock from before their first write
 * until they end (migration 006), so a running transaction without it never will; one that ended between the
 * snapshot and the look at the locks counts too (it may have written events this snapshot does not show). With none,
 * the snapshot's xmax: every transaction before it has ended. A long transaction that writes no events (an index
 * rebuild, another application's batch) therefore no longer holds the readers back.
 */
const HORIZON = `(
  SELECT coalesce(min(r.xid), pg_snapshot_xmax(pg_current_snapshot())::text::bigint)
  FROM (SELECT x::text::bigint AS xid FROM pg_snapshot_xip(pg_current_snapshot()) AS x) r
  WHERE pg_xact_status(r.xid::text::xid8) IS DISTINCT FROM 'in progress'
    OR r.xid IN (
      SELECT t.transactionid::text::bigint
      FROM pg_locks m JOIN pg_locks t ON t.pid = m.pid
      WHERE m.locktype = 'advisory' AND m.granted AND m.classid = 74013 AND m.objsubid = 2
        AND m.objid = hashtext(current_schema())::oid
        AND m.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND t.locktype = 'transactionid' AND t.granted AND t.mode = 'ExclusiveLock'
    )
)`;

/** Events after `from` whose transactions precede the horizon: no event can later appear before the last one. */
const SAFELY_COMMITTED = `transaction_id < ${HORIZON}`;

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
