import { createClient } from 'redis';
import {
  TEST_REDIS_URL,
  type TestDatabase,
  createTestDatabase,
  uniqueName,
} from '../../../test/support/test-database.js';
import type { RedisClient } from '../../redis/redis.module.js';
import type { IdempotencyStore } from './idempotency.store.js';
import { PostgresIdempotencyStore } from './postgres-idempotency.store.js';
import { RedisIdempotencyStore } from './redis-idempotency.store.js';

const FINGERPRINT = 'POST /search 1f2e';
const mine = { node: 'node-a', charge: 'charge-1' };

describe.each([
  ['Redis', 'redis'],
  ['PostgreSQL', 'postgres'],
] as const)('%s idempotency store: abandon (a claim whose answer was lost)', (_, kind) => {
  let store: IdempotencyStore;
  let close: () => Promise<void>;
  const key = (name: string) => `${uniqueName('idem')}:${name}`;

  beforeAll(async () => {
    if (kind === 'redis') {
      const client: RedisClient = createClient({ url: TEST_REDIS_URL });
      await client.connect();
      store = new RedisIdempotencyStore(client);
      close = () => client.close();
    } else {
      const database: TestDatabase = await createTestDatabase(['store']);
      store = new PostgresIdempotencyStore(database.db);
      close = () => database.drop();
    }
  });
  afterAll(() => close());

  test('removes its own running claim, so that a retry claims the key', async () => {
    const k = key('own');
    expect(await store.claim(k, FINGERPRINT, mine)).toEqual({ state: 'claimed' });
    await store.abandon(k, FINGERPRINT, mine);
    await store.abandon(k, FINGERPRINT, mine);
    expect(await store.claim(k, FINGERPRINT, { node: 'node-a', charge: 'charge-2' })).toEqual({ state: 'claimed' });
  });

  test("leaves another call's claim, and a completed record, alone", async () => {
    const other = key('other');
    await store.claim(other, FINGERPRINT, { node: 'node-b', charge: 'charge-9' });
    await store.abandon(other, FINGERPRINT, mine);
    expect((await store.claim(other, FINGERPRINT, mine)).state).toBe('running');

    const done = key('done');
    await store.claim(done, FINGERPRINT, mine);
    await store.complete(done, FINGERPRINT, { status: 200, body: { ok: true }, headers: {} });
    await store.abandon(done, FINGERPRINT, mine);
    expect((await store.claim(done, FINGERPRINT, mine)).state).toBe('done');
  });
});
