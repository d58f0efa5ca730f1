import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { describeEventStoreContract } from '../event-store.contract.js';
import {
  type From,
  type Position,
  type RecordedEvent,
  START,
  WrongExpectedVersionError,
  comparePositions,
} from '../event-store.port.js';
import { PostgresEventStore } from './postgres-event-store.js';

describeEventStoreContract('PostgreSQL table store', async () => {
  const database = await createTestDatabase(['store']);
  const store = await PostgresEventStore.create(database.db, { listen: true });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await database.drop();
    },
  };
});

/** What event_store_append does before its first write, for a transaction that writes its events by hand. */
const markAsEventWriter = (client: { query(sql: string): Promise<unknown> }) =>
  client.query(
    `SELECT pg_advisory_xact_lock_shared(74013, hashtext(current_schema())),
            pg_advisory_xact_lock_shared(74014, ((pg_current_xact_id()::text::bigint % 4294967296) - 2147483648)::int),
            set_config('event_store.appending', current_schema(), true)`,
  );

describe('PostgreSQL store under concurrent appends', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;

  beforeEach(async () => {
    database = await createTestDatabase(['store']);
    store = await PostgresEventStore.create(database.db, { pollIntervalMs: 20 });
  });
  afterEach(async () => {
    await store.close();
    await database.drop();
  });

  const newEvent = (type: string) => ({ id: randomUUID(), type, data: {} });
  const insertSlowEvent = (client: { query(sql: string, values: unknown[]): Promise<unknown> }) =>
    client.query(
      `INSERT INTO events (stream_id, stream_revision, event_id, event_type, data) VALUES ('slow', 0, $1, 'Slow', '{}')`,
      [randomUUID()],
    );

  test('an event that commits after a later-numbered one is not skipped by a reader', async () => {
    // Transaction A takes the lower global position and stays open; B takes a higher one and commits first.
    const slow = await database.db.pool.connect();
    try {
      await slow.query('BEGIN');
      await markAsEventWriter(slow);
      await insertSlowEvent(slow);
      await store.appendToStream('fast', [newEvent('Fast')], 'no_stream');

      const seenWhileOpen = await store.readAll({ from: START, maxCount: 100 });
      expect(seenWhileOpen.map((e) => e.type)).toEqual([]);
      const checkpoint = seenWhileOpen.at(-1)?.position ?? START;

      await slow.query('COMMIT');
      const seenAfter = await readUntil(store, checkpoint, 2);
      expect(seenAfter.map((e) => e.type).sort()).toEqual(['Fast', 'Slow']);
    } finally {
      slow.release();
    }
  });

  test('a transaction that got its id first but numbers its event last is still read after the checkpoint', async () => {
    const slow = await database.db.pool.connect();
    try {
      await slow.query('BEGIN');
      await markAsEventWriter(slow);
      await slow.query('SELECT pg_current_xact_id()');
      await store.appendToStream('fast', [newEvent('Fast')], 'no_stream');
      await insertSlowEvent(slow);
      expect(await store.readAll({ from: START, maxCount: 100 })).toEqual([]);
      await slow.query('COMMIT');
      const all = await readUntil(store, START, 2);
      expect(all.map((e) => e.type)).toEqual(['Slow', 'Fast']);
      expect(all[0]!.position.prepare > all[1]!.position.prepare).toBe(true);
    } finally {
      slow.release();
    }
  });

  test('a long transaction that writes no events does not hold the readers back', async () => {
    const other = await database.db.pool.connect();
    try {
      await other.query('BEGIN');
      await other.query('CREATE TEMP TABLE unrelated_work (n int)');
      await other.query('SELECT pg_current_xact_id()');
      await store.appendToStream('fast', [newEvent('Fast')], 'no_stream');
      const seen = await readUntil(store, START, 1);
      expect(seen.map((e) => e.type)).toEqual(['Fast']);
      expect(await store.headPosition()).toEqual(seen[0]!.position);
    } finally {
      await other.query('ROLLBACK').catch(() => {});
      other.release();
    }
  });

  test('events are written by event_store_append only, as the first write of its transaction', async () => {
    await expect(insertSlowEvent(database.db.pool)).rejects.toThrow(/written by event_store_append only/);
    const client = await database.db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_current_xact_id()');
      await expect(
        client.query(
          `SELECT * FROM event_store_append('late', 'any', NULL, ARRAY[$1]::uuid[], ARRAY['Late'], '[{}]', '[{}]')`,
          [randomUUID()],
        ),
      ).rejects.toThrow(/first write of its transaction/);
    } finally {
      await client.query('ROLLBACK').catch(() => {});
      client.release();
    }
    expect(await store.readAll({ from: START, maxCount: 10 })).toEqual([]);
  });

  test('with a long unrelated transaction open, a reader polling under concurrent writers skips no event', async () => {
    // The horizon then comes from the writers' locks, not from the oldest running transaction: a reader that moved
    // past an event whose writer had its id but did not show as a writer yet would never see that event.
    const other = await database.db.pool.connect();
    const seen = new Set<string>();
    const written: string[] = [];
    let writing = true;
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_current_xact_id()');
      const reading = (async () => {
        let from: From = START;
        for (;;) {
          const done = !writing;
          const page = await store.readAll({ from, maxCount: 500 });
          for (const event of page) seen.add(event.id);
          from = page.at(-1)?.position ?? from;
          if (done && page.length === 0) return;
        }
      })();
      const until = Date.now() + 2_000;
      await Promise.all(
        Array.from({ length: 8 }, async (_, w) => {
          while (Date.now() < until) {
            const event = newEvent(`W${w}`);
            await store.appendToStream(`busy-${w}`, [event], 'any');
            written.push(event.id);
          }
        }),
      );
      writing = false;
      await reading;
    } finally {
      await other.query('ROLLBACK').catch(() => {});
      other.release();
    }
    expect(written.length).toBeGreaterThan(100);
    expect(written.filter((id) => !seen.has(id))).toEqual([]);
  });

  test('a live subscription sees every event of many concurrent writers exactly once, in increasing position', async () => {
    const writers = 8;
    const perWriter = 40;
    const subscription = store.subscribeToAll(START, { batchSize: 50 });
    const received: RecordedEvent[] = [];
    const consuming = (async () => {
      for await (const batch of subscription) {
        received.push(...batch.events);
        if (received.length >= writers * perWriter) return;
      }
    })();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let i = 0; i < perWriter; i++) {
          await store.appendToStream(`writer-${w}`, [newEvent(`W${w}`)], i === 0 ? 'no_stream' : BigInt(i - 1));
        }
      }),
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      consuming,
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), 20_000))),
    ]);
    clearTimeout(timer);
    await subscription.close();

    expect(received).toHaveLength(writers * perWriter);
    expect(new Set(received.map((e) => e.id)).size).toBe(writers * perWriter);
    for (let i = 1; i < received.length; i++) {
      expect(comparePositions(received[i - 1]!.position as Position, received[i]!.position)).toBeLessThan(0);
    }
    for (let w = 0; w < writers; w++) {
      const revisions = received.filter((e) => e.streamId === `writer-${w}`).map((e) => e.revision);
      expect(revisions).toEqual(Array.from({ length: perWriter }, (_, i) => BigInt(i)));
    }
  });
});

describe('PostgreSQL store: re-appends and conflicts (one statement, event_store_append)', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;

  beforeAll(async () => {
    database = await createTestDatabase(['store']);
    store = await PostgresEventStore.create(database.db);
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  const newEvent = (type: string) => ({ id: randomUUID(), type, data: { type } });
  const conflict = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a conflict');
      },
      (error: unknown) => {
        expect(error).toBeInstanceOf(WrongExpectedVersionError);
        return error as WrongExpectedVersionError;
      },
    );

  test('a re-append answers the first result only for the same events at the same place', async () => {
    const s = `re-${randomUUID()}`;
    const [a, b, c] = [newEvent('A'), newEvent('B'), newEvent('C')];
    await store.appendToStream(s, [newEvent('first')], 'no_stream');
    const first = await store.appendToStream(s, [a, b], 0n);
    for (const expected of ['any', 'stream_exists', 0n] as const) {
      const again = await store.appendToStream(s, [a, b], expected);
      expect(again).toEqual(first);
    }
    expect((await store.appendToStream(s, [b], 'any')).nextExpectedRevision).toBe(2n);
    expect((await conflict(store.appendToStream(s, [a, b], 1n))).actual).toBe(2n);
    expect((await conflict(store.appendToStream(s, [a, b], 'no_stream'))).actual).toBe(2n);
    expect((await conflict(store.appendToStream(s, [b, a], 'any'))).actual).toBe(2n);
    expect((await conflict(store.appendToStream(s, [a, c], 'any'))).actual).toBe(2n);
    expect((await store.readStream(s)).map((e) => e.type)).toEqual(['first', 'A', 'B']);
  });

  test('an event id stored in another stream, or twice in one batch, is a conflict and appends nothing', async () => {
    const [s, other] = [`mine-${randomUUID()}`, `other-${randomUUID()}`];
    const taken = newEvent('Taken');
    await store.appendToStream(other, [taken], 'no_stream');
    expect((await conflict(store.appendToStream(s, [taken], 'any'))).actual).toBe('no_stream');
    const twice = newEvent('Twice');
    expect((await conflict(store.appendToStream(s, [twice, twice], 'any'))).actual).toBe(-1n);
    expect(await store.readStream(s)).toEqual([]);
    const streamRows = await database.db.query('SELECT 1 FROM event_streams WHERE stream_id = $1', [s]);
    expect(streamRows.rows).toEqual([]);
  });

  test('a plan the append cached while the table was small reads the indexes once the table is large', async () => {
    const fresh = await createTestDatabase(['store']);
    const session = await fresh.db.pool.connect();
    try {
      const append = (stream: string, ids: string[]) =>
        session.query(
          `SELECT * FROM event_store_append($1, 'any', NULL, $2::uuid[], $3::text[], $4::jsonb, $5::jsonb)`,
          [stream, ids, ids.map(() => 'E'), JSON.stringify(ids.map(() => ({}))), JSON.stringify(ids.map(() => ({})))],
        );
      // On an empty table: enough calls for PostgreSQL to cache this session's plans of event_store_insert.
      const first = randomUUID();
      await append('early', [first]);
      for (let i = 0; i < 10; i++) await append('early', [randomUUID()]);
      // The table grows without an ANALYZE (PGlite never runs one; autovacuum may not have yet).
      await session.query('BEGIN');
      await markAsEventWriter(session);
      await session.query(
        `INSERT INTO events (stream_id, stream_revision, event_id, event_type, data)
         SELECT 'bulk-' || g, 0, gen_random_uuid(), 'Bulk', '{}' FROM generate_series(1, 30000) g`,
      );
      await session.query('COMMIT');
      // The same session appends again (a new event, and a re-append of the first): no sequential scan of events.
      // (The backend's scan counters also hold its earlier transactions' until they are flushed: compare before/after.)
      const sequentialScans = async () =>
        Number(
          (
            await session.query<{ seq_scan: string }>(
              "SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relid = 'events'::regclass",
            )
          ).rows[0]?.seq_scan ?? 0,
        );
      for (const ids of [[randomUUID()], [first]]) {
        await session.query('BEGIN');
        const before = await sequentialScans();
        await append('early', ids);
        const after = await sequentialScans();
        await session.query('ROLLBACK');
        expect(after - before).toBe(0);
      }
    } finally {
      session.release();
      await fresh.drop();
    }
  });

  test('every event of one append has the same transaction, positions in batch order', async () => {
    const s = `one-${randomUUID()}`;
    const result = await store.appendToStream(s, [newEvent('A'), newEvent('B'), newEvent('C')], 'no_stream');
    const events = await store.readStream(s);
    expect(new Set(events.map((e) => e.position.commit))).toEqual(new Set([result.position.commit]));
    expect(events.map((e) => e.position.prepare)).toEqual([...events.map((e) => e.position.prepare)].sort());
    expect(events.at(-1)!.position).toEqual(result.position);
  });
});

describe('PostgreSQL store: other processes hear of appends', () => {
  test('a subscription of another store instance (LISTEN) wakes at once, not at its poll interval', async () => {
    const database = await createTestDatabase(['store']);
    const writer = await PostgresEventStore.create(database.db);
    const reader = await PostgresEventStore.create(database.db, { listen: true, pollIntervalMs: 60_000 });
    try {
      const subscription = reader.subscribeToAll(START);
      const iterator = subscription[Symbol.asyncIterator]();
      expect((await iterator.next()).value).toEqual({ events: [], caughtUp: true });
      const started = Date.now();
      const next = iterator.next();
      await writer.appendToStream('elsewhere', [{ id: randomUUID(), type: 'Heard', data: {} }], 'no_stream');
      const batch = await next;
      expect(batch.value?.events.map((e: RecordedEvent) => e.type)).toEqual(['Heard']);
      expect(Date.now() - started).toBeLessThan(10_000);
      await subscription.close();
    } finally {
      await writer.close();
      await reader.close();
      await database.drop();
    }
  });
});

/** Other transactions on the server (other test files) may hold readers back for a moment: read until `count` show. */
async function readUntil(store: PostgresEventStore, from: From, count: number): Promise<RecordedEvent[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const events = await store.readAll({ from, maxCount: 100 });
    if (events.length >= count || Date.now() > deadline) return events;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
