import type pg from 'pg';
import {
  type AppendResult,
  type ExpectedRevision,
  type NewEvent,
  WrongExpectedVersionError,
} from '../event-store.port.js';

const UNIQUE_VIOLATION = '23505';

/**
 * Appends in one transaction: lock the stream row, check the expected revision, insert, notify.
 * Re-appending events whose ids are already stored at the same place of the same stream returns the original result.
 */
export async function appendToStream(
  client: pg.PoolClient,
  streamId: string,
  events: readonly NewEvent[],
  expected: ExpectedRevision,
): Promise<AppendResult> {
  if (events.length === 0) throw new Error('appendToStream needs at least one event');
  await client.query('BEGIN');
  try {
    await client.query('INSERT INTO event_streams (stream_id, revision) VALUES ($1, -1) ON CONFLICT DO NOTHING', [
      streamId,
    ]);
    const locked = await client.query<{ revision: string }>(
      'SELECT revision FROM event_streams WHERE stream_id = $1 FOR UPDATE',
      [streamId],
    );
    const current = BigInt(locked.rows[0]!.revision);

    const replay = await findAlreadyAppended(client, streamId, events, expected, current);
    if (replay) {
      await client.query('COMMIT');
      return replay;
    }

    checkExpected(streamId, expected, current);
    const first = current + 1n;
    const inserted = await client.query<{ global_position: string; transaction_id: string }>(
      `INSERT INTO events (stream_id, stream_revision, event_id, event_type, data, metadata)
       SELECT $1, $2::bigint + ord - 1, id, type, data, metadata
       FROM unnest($3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[]) WITH ORDINALITY AS e(id, type, data, metadata, ord)
       ORDER BY ord
       RETURNING global_position, transaction_id`,
      [
        streamId,
        first.toString(),
        events.map((e) => e.id),
        events.map((e) => e.type),
        events.map((e) => JSON.stringify(e.data)),
        events.map((e) => JSON.stringify(e.metadata ?? {})),
      ],
    );
    const last = current + BigInt(events.length);
    await client.query('UPDATE event_streams SET revision = $2 WHERE stream_id = $1', [streamId, last.toString()]);
    await client.query("SELECT pg_notify('event_store_appended', '')");
    await client.query('COMMIT');
    const lastRow = inserted.rows.reduce((a, b) => (BigInt(a.global_position) > BigInt(b.global_position) ? a : b));
    return {
      nextExpectedRevision: last,
      position: { commit: BigInt(lastRow.transaction_id), prepare: BigInt(lastRow.global_position) },
    };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
      // Another stream already holds one of these event ids.
      throw new WrongExpectedVersionError(streamId, expected, -1n);
    }
    throw error;
  }
}

function checkExpected(streamId: string, expected: ExpectedRevision, current: bigint): void {
  const exists = current >= 0n;
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && !exists) ||
    (expected === 'stream_exists' && exists) ||
    (typeof expected === 'bigint' && expected === current);
  if (!ok) throw new WrongExpectedVersionError(streamId, expected, exists ? current : 'no_stream');
}

async function findAlreadyAppended(
  client: pg.PoolClient,
  streamId: string,
  events: readonly NewEvent[],
  expected: ExpectedRevision,
  current: bigint,
): Promise<AppendResult | undefined> {
  const found = await client.query<{
    event_id: string;
    stream_id: string;
    stream_revision: string;
    global_position: string;
    transaction_id: string;
  }>(
    `SELECT event_id, stream_id, stream_revision, global_position, transaction_id
     FROM events WHERE event_id = ANY($1::uuid[]) ORDER BY stream_revision`,
    [events.map((e) => e.id)],
  );
  if (found.rows.length === 0) return undefined;
  const byId = new Map(found.rows.map((r) => [r.event_id, r]));
  const rows = events.map((e) => byId.get(e.id));
  const firstRevision = rows[0] ? BigInt(rows[0].stream_revision) : -1n;
  const samePlace =
    rows.every(
      (r, i) => r !== undefined && r.stream_id === streamId && BigInt(r.stream_revision) === firstRevision + BigInt(i),
    ) &&
    (typeof expected !== 'bigint' || expected === firstRevision - 1n) &&
    (expected !== 'no_stream' || firstRevision === 0n);
  if (!samePlace) throw new WrongExpectedVersionError(streamId, expected, current >= 0n ? current : 'no_stream');
  const last = rows[rows.length - 1]!;
  return {
    nextExpectedRevision: BigInt(last.stream_revision),
    position: { commit: BigInt(last.transaction_id), prepare: BigInt(last.global_position) },
  };
}
