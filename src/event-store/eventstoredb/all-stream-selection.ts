import { END, START as ESDB_START, type ReadPosition } from '@eventstore/db-client';
import { type From, type Position, type RecordedEvent, START, comparePositions } from '../event-store.port.js';
import { type EsdbRecord, toRecordedEvent } from './to-recorded-event.js';

/** A record read from $all always carries its position. */
export type AllRecord = EsdbRecord & { readonly position: Position };

/** System events have `$`-prefixed types; `$`-prefixed streams hold system data (metadata, projections, stats). */
export function isUserEvent(record: Pick<EsdbRecord, 'streamId' | 'type'>): boolean {
  return !record.type.startsWith('$') && !record.streamId.startsWith('$');
}

/** Where the client starts reading $all for an exclusive `from`; the unknown position (-1) precedes everything. */
export function toReadPosition(from: From): ReadPosition {
  return from === START || from.commit < 0n ? ESDB_START : { commit: from.commit, prepare: from.prepare };
}

export function isAfter(position: Position, from: From): boolean {
  return from === START || comparePositions(position, from) > 0;
}

/**
 * The user events of a forward page of $all that lie strictly after `from`, at most `limit` of them. The server
 * starts a read at `from` inclusive, so the event at `from` comes back and is dropped here.
 */
export function userEventsAfter(page: readonly AllRecord[], from: From, limit: number): RecordedEvent[] {
  const selected: RecordedEvent[] = [];
  for (const record of page) {
    if (selected.length >= limit) break;
    if (isAfter(record.position, from) && isUserEvent(record)) selected.push(toRecordedEvent(record));
  }
  return selected;
}

/** In a backward page of $all, the position of the first user event strictly before `before` (END: no bound). */
export function lastUserPositionBefore(
  page: readonly AllRecord[],
  before: Position | typeof END,
): Position | undefined {
  const candidate = page.find(
    (record) => (before === END || comparePositions(record.position, before) < 0) && isUserEvent(record),
  );
  return candidate && { commit: candidate.position.commit, prepare: candidate.position.prepare };
}
