import type { Queryable } from '../../database/database.js';
import {
  type AppendResult,
  type ExpectedRevision,
  type NewEvent,
  WrongExpectedVersionError,
} from '../event-store.port.js';

const UNIQUE_VIOLATION = '23505';
/** Raised by event_store_append when the expected revision does not hold; DETAIL is the actual revision. */
const WRONG_EXPECTED_VERSION = 'ES409';

/**
 * Appends in one statement, one round trip: `event_store_append` (src/database/migrations/005_event_store_append.sql)
 * locks the stream row, checks the expected revision and inserts, in its own transaction (other processes are told
 * afterwards, see AppendSignal.announce). Re-appending events whose ids are already stored at the same place of the same
 * stream returns the original result.
 */
export async function appendToStream(
  db: Queryable,
  streamId: string,
  events: readonly NewEvent[],
  expected: ExpectedRevision,
): Promise<AppendResult> {
  if (events.length === 0) throw new Error('appendToStream needs at least one event');
  try {
    const result = await db.query<{
      next_expected_revision: string;
      commit_position: string;
      prepare_position: string;
    }>({
      name: 'event_store_append',
      text: `SELECT next_expected_revision, commit_position, prepare_position
       FROM event_store_append($1, $2, $3, $4::uuid[], $5::text[], $6::jsonb, $7::jsonb)`,
      values: [
        streamId,
        typeof expected === 'bigint' ? 'exact' : expected,
        typeof expected === 'bigint' ? expected.toString() : null,
        events.map((e) => e.id),
        events.map((e) => e.type),
        JSON.stringify(events.map((e) => e.data)),
        JSON.stringify(events.map((e) => e.metadata ?? {})),
      ],
    });
    const row = result.rows[0]!;
    return {
      nextExpectedRevision: BigInt(row.next_expected_revision),
      position: { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) },
    };
  } catch (error) {
    const { code, detail } = error as { code?: string; detail?: string };
    if (code === WRONG_EXPECTED_VERSION) {
      throw new WrongExpectedVersionError(
        streamId,
        expected,
        detail === undefined || detail === 'no_stream' ? 'no_stream' : BigInt(detail),
      );
    }
    if (code === UNIQUE_VIOLATION) {
      // Another stream already holds one of these event ids.
      throw new WrongExpectedVersionError(streamId, expected, -1n);
    }
    throw error;
  }
}
