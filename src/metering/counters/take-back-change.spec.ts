import { Logger } from '@nestjs/common';
import { SocketClosedUnexpectedlyError, createClient } from 'redis';
import { TEST_REDIS_URL, uniqueName } from '../../../test/support/test-database.js';
import type { SingleRedisClient as RedisClient } from '../../redis/redis-client.js';
import type { CreditCounters } from './credit-counters.js';
import { RedisCreditCounters } from './redis-credit-counters.js';
import { takeBackChange } from './take-back-change.js';

describe('takeBackChange: a journaled change of an unbilled call, whether or not it ran', () => {
  const prefix = `${uniqueName('take-back')}:`;
  const logger = new Logger('test');
  let client: RedisClient;
  let counters: RedisCreditCounters;
  const seed = async () => 0;

  beforeAll(async () => {
    client = createClient({ url: TEST_REDIS_URL });
    await client.connect();
    counters = new RedisCreditCounters(client);
  });
  afterAll(async () => {
    const keys: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch);
    if (keys.length > 0) await client.del(keys);
    await client.close();
  });

  const journalOf = (call: string) => ({ key: `${prefix}journal`, call });

  test('one that ran goes, once; one that never ran changes nothing', async () => {
    const key = `${prefix}units:a`;
    await counters.increment(key, 10, seed, journalOf('earlier'));
    const ran = journalOf('ran');
    await counters.increment(key, 3, seed, ran); // ...and its answer was lost
    expect(await client.get(key)).toBe('13');

    await takeBackChange(counters, { key, amount: 3, journal: ran }, logger);
    expect(await client.get(key)).toBe('10');
    await takeBackChange(counters, { key, amount: 3, journal: ran }, logger);
    expect(await client.get(key)).toBe('10');
    await takeBackChange(counters, { key, amount: 4, journal: journalOf('never ran') }, logger);
    expect(await client.get(key)).toBe('10');
    expect(Object.keys(await client.hGetAll(`${prefix}journal`))).toEqual([`earlier|${key}`]);
  });

  test('while Redis is away it is tried again, in the background, until Redis answers', async () => {
    const key = `${prefix}units:b`;
    const journal = journalOf('late');
    await counters.increment(key, 5, seed, journal);
    let failures = 2;
    const away: CreditCounters = Object.create(counters) as CreditCounters;
    away.adjust = async (...args) => {
      if (failures-- > 0) throw new SocketClosedUnexpectedlyError();
      return counters.adjust(...args);
    };

    await takeBackChange(away, { key, amount: 5, journal }, logger);
    expect(await client.get(key)).toBe('5');
    const deadline = Date.now() + 5_000;
    while ((await client.get(key)) !== '0' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await client.get(key)).toBe('0');
    expect(failures).toBe(-1);
  });
});
