import { PassThrough } from 'node:stream';
import type { AllStreamResolvedEvent } from '@eventstore/db-client';
import { type From, type Position, START, type SubscriptionBatch } from '../event-store.port.js';
import type { AllRecord } from './all-stream-selection.js';
import { type CatchUpSource, CatchUpSubscription } from './catch-up-subscription.js';

/**
 * Stands in for the client's subscription: like it, an object-mode stream that buffers resolved events and emits
 * `caughtUp` / `fellBehind` out of band. Only the gRPC side is missing.
 */
class StandInSource extends PassThrough implements CatchUpSource {
  unsubscribed = 0;

  constructor() {
    super({ objectMode: true, highWaterMark: 64 });
  }

  override read(size?: number): AllStreamResolvedEvent | null {
    return super.read(size) as AllStreamResolvedEvent | null;
  }

  async unsubscribe(): Promise<void> {
    this.unsubscribed += 1;
  }

  deliver(...records: AllRecord[]): void {
    for (const event of records) this.write({ event, commitPosition: event.position.commit });
  }
}

const p = (n: bigint): Position => ({ commit: n, prepare: n });

function at(n: bigint, streamId = 'order-1', type = 'OrderPlaced'): AllRecord {
  return {
    streamId,
    id: `00000000-0000-4000-8000-${n.toString().padStart(12, '0')}`,
    revision: n,
    type,
    created: new Date(0),
    data: { n: Number(n) },
    metadata: undefined,
    position: p(n),
  };
}

function subscription(
  from: From,
  head: From,
  batchSize = 10,
): { subscription: CatchUpSubscription; source: StandInSource; starts: () => number } {
  const source = new StandInSource();
  let starts = 0;
  const sub = new CatchUpSubscription(from, batchSize, async () => {
    starts += 1;
    return { source, head };
  });
  return { subscription: sub, source, starts: () => starts };
}

const commits = (batch: SubscriptionBatch) => batch.events.map((e) => e.position.commit);

async function next(iterator: AsyncIterator<SubscriptionBatch>): Promise<SubscriptionBatch> {
  const result = await iterator.next();
  if (result.done) throw new Error('subscription ended');
  return result.value;
}

async function isPending(promise: Promise<unknown>): Promise<boolean> {
  const pending = Symbol('pending');
  const winner = await Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(pending), 30))]);
  return winner === pending;
}

describe('CatchUpSubscription', () => {
  test('buffered records come in batches of at most batchSize, minus the record at `from` and system events', async () => {
    const { subscription: sub, source } = subscription(p(100n), p(500n), 2);
    source.deliver(at(100n), at(150n, '$stats-node', '$statsCollected'), at(200n), at(300n), at(400n), at(500n));
    const iterator = sub[Symbol.asyncIterator]();

    expect(commits(await next(iterator))).toEqual([200n, 300n]);
    expect(commits(await next(iterator))).toEqual([400n, 500n]);
    await sub.close();
  });

  test('caughtUp turns true with the batch that reaches the head read at start', async () => {
    const { subscription: sub, source } = subscription(START, p(300n), 2);
    source.deliver(at(100n), at(200n), at(300n));
    const iterator = sub[Symbol.asyncIterator]();

    expect(await next(iterator)).toMatchObject({ caughtUp: false });
    const second = await next(iterator);
    expect(commits(second)).toEqual([300n]);
    expect(second.caughtUp).toBe(true);
    await sub.close();
  });

  test('an empty store yields one empty caught-up batch, then live events, and no further empty batches', async () => {
    const { subscription: sub, source } = subscription(START, START);
    const iterator = sub[Symbol.asyncIterator]();

    expect(await next(iterator)).toEqual({ events: [], caughtUp: true });
    const live = iterator.next();
    expect(await isPending(live)).toBe(true);
    source.deliver(at(10n));
    expect(await live).toEqual({
      done: false,
      value: { events: [expect.objectContaining({ revision: 10n })], caughtUp: true },
    });
    expect(await isPending(iterator.next())).toBe(true);
    await sub.close();
  });

  test('starting at the head is caught up at once', async () => {
    const { subscription: sub } = subscription(p(70n), p(70n));
    const iterator = sub[Symbol.asyncIterator]();
    expect(await next(iterator)).toEqual({ events: [], caughtUp: true });
    await sub.close();
  });

  test("the server's caughtUp counts only after the records buffered before it are delivered", async () => {
    const { subscription: sub, source } = subscription(START, p(9_999n), 2);
    const iterator = sub[Symbol.asyncIterator]();
    const first = iterator.next();
    setImmediate(() => {
      source.deliver(at(1n), at(2n), at(3n));
      source.emit('caughtUp');
    });

    const firstBatch = (await first).value as SubscriptionBatch;
    expect(commits(firstBatch)).toEqual([1n, 2n]);
    expect(firstBatch.caughtUp).toBe(false);
    expect(await next(iterator)).toMatchObject({ caughtUp: true, events: [expect.objectContaining({ revision: 3n })] });
    await sub.close();
  });

  test("the server's caughtUp with nothing buffered yields the empty caught-up batch", async () => {
    const { subscription: sub, source } = subscription(START, p(9_999n));
    const iterator = sub[Symbol.asyncIterator]();
    const first = iterator.next();
    setImmediate(() => source.emit('caughtUp'));
    expect(await first).toEqual({ done: false, value: { events: [], caughtUp: true } });
    await sub.close();
  });

  test('fellBehind makes later batches report caughtUp false until the next caughtUp', async () => {
    const { subscription: sub, source } = subscription(START, START);
    const iterator = sub[Symbol.asyncIterator]();
    expect(await next(iterator)).toEqual({ events: [], caughtUp: true });
    source.emit('fellBehind');
    source.deliver(at(1n));
    expect(await next(iterator)).toMatchObject({ caughtUp: false });
    source.emit('caughtUp');
    expect(await next(iterator)).toEqual({ events: [], caughtUp: true });
    await sub.close();
  });

  test('close() ends a waiting iteration and unsubscribes once', async () => {
    const { subscription: sub, source } = subscription(START, p(50n));
    const iterator = sub[Symbol.asyncIterator]();
    const pending = iterator.next();
    expect(await isPending(pending)).toBe(true);

    await Promise.all([sub.close(), sub.close()]);
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(source.unsubscribed).toBe(1);
    expect(source.destroyed).toBe(true);
  });

  test('leaving a for-await loop unsubscribes', async () => {
    const { subscription: sub, source } = subscription(START, START);
    for await (const batch of sub) {
      expect(batch.caughtUp).toBe(true);
      break;
    }
    expect(source.unsubscribed).toBe(1);
  });

  test('closing before iterating never starts the subscription', async () => {
    const { subscription: sub, starts } = subscription(START, START);
    await sub.close();
    expect(await sub[Symbol.asyncIterator]().next()).toEqual({ done: true, value: undefined });
    expect(starts()).toBe(0);
  });

  test('a source error reaches the consumer after the records buffered before it, and unsubscribes', async () => {
    const { subscription: sub, source } = subscription(START, p(50n));
    const iterator = sub[Symbol.asyncIterator]();
    const first = iterator.next();
    setImmediate(() => {
      source.deliver(at(1n));
      source.emit('error', new Error('14 UNAVAILABLE: connection lost'));
    });

    expect(commits((await first).value as SubscriptionBatch)).toEqual([1n]);
    await expect(iterator.next()).rejects.toThrow('connection lost');
    expect(source.unsubscribed).toBe(1);
  });

  test('a source that ends without close() is an error', async () => {
    const { subscription: sub, source } = subscription(START, p(50n));
    source.end();
    await expect(sub[Symbol.asyncIterator]().next()).rejects.toThrow('ended without being closed');
  });

  test('a failing start (e.g. the head read) is thrown to the consumer', async () => {
    const sub = new CatchUpSubscription(START, 10, () => Promise.reject(new Error('no server')));
    await expect(sub[Symbol.asyncIterator]().next()).rejects.toThrow('no server');
    await expect(sub.close()).resolves.toBeUndefined();
  });

  test('batchSize must be a positive integer and the subscription can be iterated once', () => {
    expect(() => subscription(START, START, 0)).toThrow(RangeError);
    const { subscription: sub } = subscription(START, START);
    sub[Symbol.asyncIterator]();
    expect(() => sub[Symbol.asyncIterator]()).toThrow('iterated once');
  });
});
