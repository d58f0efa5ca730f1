import type { RecordedEvent } from '../event-store.port.js';

export interface EventRow {
  global_position: string;
  transaction_id: string;
  stream_id: string;
  stream_revision: string;
  event_id: string;
  event_type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  created_at: Date;
}

export const EVENT_COLUMNS =
  'global_position, transaction_id, stream_id, stream_revision, event_id, event_type, data, metadata, created_at';

export function rowToRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: BigInt(row.stream_revision),
    position: { commit: BigInt(row.transaction_id), prepare: BigInt(row.global_position) },
    type: row.event_type,
    data: row.data,
    metadata: row.metadata,
    created: row.created_at,
  };
}
