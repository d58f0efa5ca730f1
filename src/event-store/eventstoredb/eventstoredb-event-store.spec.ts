import { randomUUID } from 'node:crypto';
import { describeEventStoreContract } from '../event-store.contract.js';
import { START } from '../event-store.port.js';
import { EventStoreDbEventStore } from './eventstoredb-event-store.js';

const url = process.env.EVENTSTORE_URL;

if (url) {
  describeEventStoreContract('EventStoreDB', async () => {
    const store = EventStoreDbEventStore.fromConnectionString(url);
    return { store, cleanup: () => store.close() };
  });
} else {
  process.stdout.write('EventStoreDB contract suite skipped: EVENTSTORE_URL is not set\n');
  test.skip('EventStoreDB contract suite (EVENTSTORE_URL is not set)', () => undefined);
}

describe('EventStoreDbEventStore argument checks (no server needed)', () => {
  // Nothing listens on port 1; the client only connects on first use, which these checks never reach.
  const store = EventStoreDbEventStore.fromConnectionString('esdb://127.0.0.1:1?tls=false');
  afterAll(() => store.close());

  test('an append without events is refused', async () => {
    await expect(store.appendToStream(`s-${randomUUID()}`, [], 'any')).rejects.toThrow(RangeError);
  });

  test('a negative expected revision is refused', async () => {
    const event = { id: randomUUID(), type: 'A', data: {} };
    await expect(store.appendToStream(`s-${randomUUID()}`, [event], -1n)).rejects.toThrow(RangeError);
  });

  test('reading at most 0 events reads nothing', async () => {
    expect(await store.readStream(`s-${randomUUID()}`, { maxCount: 0 })).toEqual([]);
    expect(await store.readAll({ from: START, maxCount: 0 })).toEqual([]);
  });

  test('a subscription batch size below 1 is refused', () => {
    expect(() => store.subscribeToAll(START, { batchSize: 0 })).toThrow(RangeError);
  });
});
