import type { Queryable } from '../../database/database.js';
import type { ReadStreamOptions, RecordedEvent } from '../event-store.port.js';
import { EVENT_COLUMNS, type EventRow, rowToRecordedEvent } from './row-to-recorded-event.js';

export async function readStream(
  db: Queryable,
  streamId: string,
  options: ReadStreamOptions = {},
): Promise<RecordedEvent[]> {
  const result = await db.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM events
     WHERE stream_id = $1 AND stream_revision >= $2
     ORDER BY stream_revision
     LIMIT $3`,
    [streamId, (options.fromRevision ?? 0n).toString(), options.maxCount ?? null],
  );
  return result.rows.map(rowToRecordedEvent);
}
