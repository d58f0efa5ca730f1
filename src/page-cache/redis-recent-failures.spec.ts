import { createClient } from 'redis';
import { TEST_REDIS_URL, uniqueName } from '../../test/support/test-database.js';
import type { SingleRedisClient as RedisClient } from '../redis/redis-client.js';
import { FAILURE_TTL_MS, type FailureMemory } from './failure-memory.js';
import { describeFailureMemoryContract } from './failure-memory.contract.js';
import { RedisRecentFailures } from './redis-recent-failures.js';

const prefix = `${uniqueName('failures')}:`;
const clients = new Map<FailureMemory, RedisClient>();

async function connect(): Promise<RedisClient> {
  const client: RedisClient = createClient({ url: TEST_REDIS_URL });
  await client.connect();
  return client;
}

async function cleanup(): Promise<void> {
  const client = await connect();
  const keys: string[] = [];
  for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch);
  if (keys.length > 0) await client.del(keys);
  await client.close();
  for (const c of clients.values()) await c.close();
  clients.clear();
}

describeFailureMemoryContract('Redis', () =>
  Promise.resolve({
    // Each start is a node of its own: a new connection to the same Redis.
    start: async () => {
      const client = await connect();
      const memory = new RedisRecentFailures(client, prefix);
      clients.set(memory, client);
      return memory;
    },
    // Commands on one connection run in order: once a PING answers, the writes before it are done.
    settled: async (memory) => void (await clients.get(memory)!.ping()),
    shared: true,
    cleanup,
  }),
);

describe('RedisRecentFailures', () => {
  afterAll(cleanup);

  test('one key per URL under the prefix, expiring with the TTL', async () => {
    const client = await connect();
    clients.set(new RedisRecentFailures(client, 'unused'), client);
    const memory = new RedisRecentFailures(client, prefix);
    memory.remember('http://ttl.test/page');
    await client.ping();
    const ttl = await client.pTTL(`${prefix}page-failed:http://ttl.test/page`);
    expect(ttl).toBeGreaterThan(FAILURE_TTL_MS - 5000);
    expect(ttl).toBeLessThanOrEqual(FAILURE_TTL_MS);
  });

  test('a Redis that does not answer remembers nothing, and the lookup says so at once', async () => {
    const client = await connect();
    const memory = new RedisRecentFailures(client, prefix);
    memory.remember('http://gone.test/page');
    await client.ping();
    await client.close();
    const started = Date.now();
    expect(await memory.failedWithin(['http://gone.test/page'], 60)).toEqual(new Set());
    expect(Date.now() - started).toBeLessThan(1000);
    expect(() => memory.remember('http://gone.test/other')).not.toThrow();
  });
});
