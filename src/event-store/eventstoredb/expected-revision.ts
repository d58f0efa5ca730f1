import {
  ANY,
  type AppendExpectedRevision,
  type CurrentRevision,
  NO_STREAM,
  STREAM_EXISTS,
} from '@eventstore/db-client';
import type { ExpectedRevision } from '../event-store.port.js';

export function toEsdbExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    case 'any':
      return ANY;
    default:
      if (expected < 0n) throw new RangeError(`expected revision must be >= 0, got ${expected}`);
      return expected;
  }
}

/** The server reports a missing stream either as `no_stream` or as revision -1, depending on the call path. */
export function toActualRevision(current: CurrentRevision): bigint | 'no_stream' {
  return current === NO_STREAM || current < 0n ? 'no_stream' : current;
}
