import { randomUUID } from 'node:crypto';
import {
  type EventStore,
  type NewEvent,
  type RecordedEvent,
  START,
  type SubscriptionBatch,
  WrongExpectedVersionError,
  comparePositions,
} from './event-store.port.js';

export interface ContractSubject {
  readonly store: EventStore;
  cleanup(): Promise<void>;
}

function event(type: string, data: Record<string, unknown> = {}): NewEvent {
  return { id: randomUUID(), type, data, metadata: { schema_version: 1 } };
}

/** The behaviour every EventStore adapter must have; each adapter's spec calls this once. */
export function describeEventStoreContract(name: string, create: () => Promise<ContractSubject>): void {
  describe(`EventStore contract: ${name}`, () => {
    let subject: ContractSubject;
    let store: EventStore;
    const run = randomUUID().slice(0, 8);
    const stream = (label: string) => `contract_${run}-${label}-${randomUUID().slice(0, 8)}`;

    beforeAll(async () => {
      subject = await create();
      store = subject.store;
    });
    afterAll(async () => {
      await subject.cleanup();
    });

    describe('append with an expected revision', () => {
      test('no_stream creates the stream and numbers events from 0', async () => {
        const s = stream('new');
        const result = await store.appendToStream(s, [event('A'), event('B')], 'no_stream');
        expect(result.nextExpectedRevision).toBe(1n);
        const read = await store.readStream(s);
        expect(read.map((e) => [e.type, e.revision])).toEqual([
          ['A', 0n],
          ['B', 1n],
        ]);
      });

      test('no_stream on an existing stream is a typed conflict', async () => {
        const s = stream('exists');
        await store.appendToStream(s, [event('A')], 'no_stream');
        const error = await store.appendToStream(s, [event('B')], 'no_stream').catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WrongExpectedVersionError);
        expect((error as WrongExpectedVersionError).streamId).toBe(s);
        expect((error as WrongExpectedVersionError).actual).toBe(0n);
        expect(await store.readStream(s)).toHaveLength(1);
      });

      test('stream_exists refuses a missing stream and accepts an existing one', async () => {
        const s = stream('must-exist');
        const error = await store.appendToStream(s, [event('A')], 'stream_exists').catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WrongExpectedVersionError);
        expect(await store.readStream(s)).toEqual([]);
        await store.appendToStream(s, [event('A')], 'no_stream');
        const result = await store.appendToStream(s, [event('B')], 'stream_exists');
        expect(result.nextExpectedRevision).toBe(1n);
      });

      test('any appends whatever the state', async () => {
        const s = stream('any');
        await store.appendToStream(s, [event('A')], 'any');
        const result = await store.appendToStream(s, [event('B')], 'any');
        expect(result.nextExpectedRevision).toBe(1n);
      });

      test('an exact revision must match the last revision', async () => {
        const s = stream('exact');
        await store.appendToStream(s, [event('A'), event('B')], 'no_stream');
        const error = await store.appendToStream(s, [event('C')], 0n).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WrongExpectedVersionError);
        expect((error as WrongExpectedVersionError).actual).toBe(1n);
        const result = await store.appendToStream(s, [event('C')], 1n);
        expect(result.nextExpectedRevision).toBe(2n);
      });

      test('of two concurrent writers expecting the same revision, exactly one wins', async () => {
        const s = stream('race');
        await store.appendToStream(s, [event('A')], 'no_stream');
        const outcomes = await Promise.allSettled(
          Array.from({ length: 6 }, () => store.appendToStream(s, [event('B')], 0n)),
        );
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        for (const o of outcomes.filter((o) => o.status === 'rejected')) {
          expect((o as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError);
        }
        expect(await store.readStream(s)).toHaveLength(2);
      });
    });

    test('appending the same event ids again is idempotent', async () => {
      const s = stream('idem');
      const batch = [event('A'), event('B')];
      const first = await store.appendToStream(s, batch, 'no_stream');
      const again = await store.appendToStream(s, batch, 'no_stream');
      expect(again.nextExpectedRevision).toBe(first.nextExpectedRevision);
      expect(comparePositions(again.position, first.position)).toBe(0);
      expect(await store.readStream(s)).toHaveLength(2);
    });

    test('read a stream from a revision, with a maximum count', async () => {
      const s = stream('read');
      await store.appendToStream(
        s,
        ['A', 'B', 'C', 'D'].map((t) => event(t, { t })),
        'no_stream',
      );
      const tail = await store.readStream(s, { fromRevision: 1n, maxCount: 2 });
      expect(tail.map((e) => e.type)).toEqual(['B', 'C']);
      expect(tail[0]!.data).toEqual({ t: 'B' });
      expect(tail[0]!.metadata).toMatchObject({ schema_version: 1 });
      expect(tail[0]!.streamId).toBe(s);
      expect(tail[0]!.created).toBeInstanceOf(Date);
      expect(await store.readStream(stream('absent'))).toEqual([]);
    });

    test('read all from a position, exclusive, in position order', async () => {
      const s1 = stream('all1');
      const s2 = stream('all2');
      const a = await store.appendToStream(s1, [event('A1')], 'no_stream');
      await store.appendToStream(s2, [event('B1')], 'no_stream');
      await store.appendToStream(s1, [event('A2')], 0n);
      const events = await eventually(
        () => readAllAfter(store, a.position),
        (all) => all.filter((e) => e.streamId === s1 || e.streamId === s2).length >= 2,
      );
      const ours = events.filter((e) => e.streamId === s1 || e.streamId === s2);
      expect(ours.map((e) => e.type)).toEqual(['B1', 'A2']);
      for (let i = 1; i < events.length; i++) {
        expect(comparePositions(events[i - 1]!.position, events[i]!.position)).toBeLessThan(0);
      }
      // The horizon is per statement: while another writer of the schema is between its two locks, a reader stops at
      // the cluster's oldest running transaction, which may be older than A1. Readable again once that writer resolves.
      const fromStart = await eventually(
        () => readAllAfter(store, START),
        (all) => all.filter((e) => e.streamId === s1).length >= 2,
      );
      expect(fromStart.filter((e) => e.streamId === s1).map((e) => e.type)).toEqual(['A1', 'A2']);
    });

    test('head position is the last readable event', async () => {
      const s = stream('head');
      const result = await store.appendToStream(s, [event('H')], 'no_stream');
      const head = await eventually(
        () => store.headPosition(),
        (h) => h !== START && comparePositions(h, result.position) >= 0,
      );
      expect(head).not.toBe(START);
      if (head !== START) expect(comparePositions(head, result.position)).toBeGreaterThanOrEqual(0);
    });

    test('a catch-up subscription from a checkpoint delivers the past, says it is caught up, then turns live', async () => {
      const s = stream('sub');
      const checkpoint = await store.appendToStream(s, [event('before')], 'no_stream');
      await store.appendToStream(s, [event('past1'), event('past2')], 0n);
      const subscription = store.subscribeToAll(checkpoint.position, { batchSize: 2 });
      const iterator = subscription[Symbol.asyncIterator]();
      const seen: RecordedEvent[] = [];
      let caughtUp = false;
      const take = async (until: (b: SubscriptionBatch) => boolean) => {
        for (;;) {
          const next = await withTimeout(iterator.next(), 10_000);
          if (next.done) throw new Error('subscription ended');
          seen.push(...next.value.events.filter((e) => e.streamId === s));
          if (next.value.caughtUp) caughtUp = true;
          if (until(next.value)) return;
        }
      };
      await take(() => caughtUp && seen.length >= 2);
      expect(seen.map((e) => e.type)).toEqual(['past1', 'past2']);
      await store.appendToStream(s, [event('live1')], 2n);
      await take(() => seen.length >= 3);
      expect(seen.map((e) => e.type)).toEqual(['past1', 'past2', 'live1']);
      await subscription.close();
    });
  });
}

async function readAllAfter(
  store: EventStore,
  from: Parameters<EventStore['readAll']>[0]['from'],
): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  let position = from;
  for (;;) {
    const page = await store.readAll({ from: position, maxCount: 200 });
    all.push(...page);
    if (page.length < 200) return all;
    position = page[page.length - 1]!.position;
  }
}

/**
 * Reads until `done` holds. Stores may make an append visible to readers a little later than the append returns
 * (the PostgreSQL store holds back events behind any still-running transaction on the server).
 */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    }),
  ]);
}
