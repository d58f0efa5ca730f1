import { createClient } from 'redis';
import { TEST_REDIS_URL, uniqueName } from '../../../test/support/test-database.js';
import type { SingleRedisClient as RedisClient } from '../../redis/redis-client.js';
import { describeCreditCountersContract } from './credit-counters.contract.js';
import { RedisCreditCounters } from './redis-credit-counters.js';

describeCreditCountersContract('Redis', async () => {
  const prefix = `${uniqueName('counters')}:`;
  const clients: RedisClient[] = [];
  return {
    prefix,
    // Each start is a node of its own: a new connection to the same Redis.
    start: async () => {
      const client: RedisClient = createClient({ url: TEST_REDIS_URL });
      await client.connect();
      clients.push(client);
      return new RedisCreditCounters(client);
    },
    cleanup: async () => {
      const [client] = clients;
      if (client) {
        const keys: string[] = [];
        for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch);
        if (keys.length > 0) await client.del(keys);
      }
      for (const c of clients) await c.close();
    },
  };
});
