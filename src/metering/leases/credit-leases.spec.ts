import { createClient } from 'redis';
import { TEST_REDIS_URL, uniqueName } from '../../../test/support/test-database.js';
import type { Position } from '../../event-store/event-store.port.js';
import type { SingleRedisClient as RedisClient } from '../../redis/redis-client.js';
import type { Seed, SeedValue } from '../counters/credit-counters.js';
import { RedisCreditCounters } from '../counters/redis-credit-counters.js';
import { CreditLeases } from './credit-leases.js';

/** The ledger as the counters' seeds read it: charged credits and the store position they include. */
class Ledger {
  value = 0;
  position: Position = { commit: 1n, prepare: 1n };

  charge(credits: number): Position {
    this.value += credits;
    this.position = { commit: this.position.commit + 1n, prepare: this.position.prepare + 1n };
    return this.position;
  }

  read(): SeedValue {
    return { value: this.value, covers: this.position };
  }
}

async function eventually(check: () => Promise<boolean>, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('credit leases against a counter Redis dropped without its lease', () => {
  const prefix = `${uniqueName('leases')}:`;
  let redis: RedisClient;
  let leases: CreditLeases;

  beforeAll(async () => {
    redis = createClient({ url: TEST_REDIS_URL });
    await redis.connect();
  });
  const newLeases = (counters: RedisCreditCounters) =>
    new CreditLeases({
      redis,
      counters,
      journalKey: `${prefix}journal`,
      leasesKey: (orgId, month) => `${prefix}leases:${orgId}:${month}`,
      receiptKey: (batchId) => `${prefix}lease-receipt:${batchId}`,
    });

  afterEach(async () => {
    await leases?.returnAll();
  });
  afterAll(async () => {
    const keys: string[] = [];
    for await (const batch of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch);
    if (keys.length > 0) await redis.del(keys);
    await redis.close();
  });

  test('a charge settled while the counter is missing is counted, even when a seed read before it lands after it', async () => {
    const counters = new RedisCreditCounters(redis);
    leases = newLeases(counters);
    const ledger = new Ledger();
    const seed: Seed = async () => ledger.read();
    const key = `${prefix}quota:org:2026-01`;
    const request = { key, orgId: 'org', month: '2026-01', allowance: 100, amount: 5, seed };

    const admission = await leases.reserve(request);
    if (!admission.ok) throw new Error('the first call must fit');
    expect(await redis.get(key)).toBe('0');

    // Redis drops the counter (evicted), not the lease. A reading of the counter seeds it from the ledger as it is
    // before the call's charge, and its answer is slow to come.
    await redis.del(key);
    const before = ledger.read();
    let answer: () => void = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const staleRead = counters.read(key, async () => {
      await answered;
      return before;
    });

    // The call's charge is durable, then settled from the lease into the missing counter.
    const chargedAt = ledger.charge(5);
    await admission.hold.charged(5, async () => chargedAt);
    await eventually(async () => (await redis.get(key)) !== null);

    answer();
    await staleRead;
    expect(Number(await redis.get(key))).toBe(5);
  });

  test('settlements still go out after a pass that found nothing to send', async () => {
    const counters = new RedisCreditCounters(redis);
    leases = newLeases(counters);
    const ledger = new Ledger();
    const key = `${prefix}quota:idle:2026-01`;
    const request = {
      key,
      orgId: 'idle',
      month: '2026-01',
      allowance: 100,
      amount: 1,
      seed: async () => ledger.read(),
    };

    // What a retry timer does when another pass already sent what it was kept for: a pass over an empty queue.
    await (leases as unknown as { steps: { flush(): Promise<void> } }).steps.flush();

    const admission = await leases.reserve(request);
    if (!admission.ok) throw new Error('the call must fit');
    const chargedAt = ledger.charge(1);
    await admission.hold.charged(1, async () => chargedAt);
    await eventually(async () => (await redis.get(key)) === '1');
    expect(await redis.get(key)).toBe('1');
  });
});
