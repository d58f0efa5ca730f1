import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { RedisCreditCounters } from '../../src/metering/counters/redis-credit-counters.js';
import { CreditLeases } from '../../src/metering/leases/credit-leases.js';
import { redisClientOptions } from '../../src/redis/redis-client-options.js';
import { eventually, sleep } from '../support/fault-harness.js';
import { PrivateRedis } from '../support/private-redis.js';

const COMMAND_TIMEOUT_MS = 200;

/**
 * A Redis that stalls (SIGSTOP: the connection stays up, nothing is read) while commands pile up behind a large
 * write: node-redis fails those it could not send with its command timeout (REDIS_COMMAND_TIMEOUT_MS), while the
 * client still counts as ready. Such a command was never sent, so the lease step it carried must be kept and sent
 * again, not dropped as a step Redis refused: a dropped settlement is a durable charge the counter never counts.
 */
describe('a lease step that timed out unsent while Redis stalled', () => {
  let redis: PrivateRedis;
  let client: ReturnType<typeof createClient>;
  let leases: CreditLeases | undefined;
  const prefix = `stall:${randomUUID()}:`;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    client = createClient(redisClientOptions(redis.url, COMMAND_TIMEOUT_MS));
    client.on('error', () => {});
    await client.connect();
  });

  afterAll(async () => {
    redis?.resume();
    await leases?.returnAll();
    client?.destroy();
    await redis?.kill();
  });

  test('is sent again once Redis reads again: the counter counts the charge', async () => {
    leases = new CreditLeases({
      redis: client,
      counters: new RedisCreditCounters(client),
      journalKey: `${prefix}journal`,
      leasesKey: (orgId, month) => `${prefix}leases:${orgId}:${month}`,
    });
    const quotaKey = `${prefix}quota`;
    const request = { key: quotaKey, orgId: 'org', month: 'm', allowance: 1_000, amount: 2, seed: async () => 0 };
    const admission = await leases.reserve(request);
    if (!admission.ok) throw new Error('no lease');
    expect(await client.get(quotaKey)).toBe('0');

    redis.pause();
    // More than the socket buffers take: node-redis waits for 'drain' before it writes the next commands.
    const big = client.set(`${prefix}big`, Buffer.alloc(64 * 1024 * 1024));
    await sleep(100);
    // Two commands in one tick: the first is written (node-redis writes one before it looks at the backlog), the
    // settlement's script waits behind it, unsent, until its command timeout.
    const ping = client.ping();
    const used = await admission.hold.charged(2, async () => null);
    expect(used).toBe(2);
    await sleep(COMMAND_TIMEOUT_MS * 3);
    expect(client.isReady).toBe(true);

    redis.resume();
    await big;
    await ping;
    await eventually(
      'the settlement counted',
      () => client.get(quotaKey),
      (value) => value === '2',
      5_000,
    );
  }, 30_000);
});
