import type { RedisClient } from '../../src/redis/redis.module.js';
import { counterKeys } from '../../src/metering/counter-keys.js';
import { redisKeyspace } from '../../src/redis/redis-keyspace.js';
import { eventually, sleep } from '../support/eventually.js';
import { expectLedgerAgrees, timedCall } from '../support/fault-harness.js';
import { changePlan, chargesOf, meteredOrganization } from '../support/metering-fixture.js';
import type { PrivateRedis } from '../support/private-redis.js';
import { type RedisFaultApp, startRedisFaultApp } from '../support/redis-fault-app.js';
import type { SmtpSink } from '../support/smtp-sink.js';
import type { TcpProxy } from '../support/tcp-proxy.js';
import type { TestApp } from '../support/test-app.js';

/**
 * The connection to Redis is cut (Redis itself keeps its data) while a volume-priced call works: pricing it needs
 * Redis (its units counter), which does not come back within REDIS_COMMAND_TIMEOUT_MS, so the call answers 503
 * unbilled. Its reservation must go back all the same: a reservation left held keeps its credit lease outstanding
 * in Redis, credits the organization can never use, for as long as the node lives.
 */
describe('Redis cut while a call works: the call that cannot be priced gives its reservation back', () => {
  let fault: RedisFaultApp;
  let redis: PrivateRedis;
  let proxy: TcpProxy;
  let smtp: SmtpSink;
  let app: TestApp;
  let inspector: RedisClient;
  const month = new Date().toISOString().slice(0, 7);

  beforeAll(async () => {
    fault = await startRedisFaultApp({ viaProxy: true });
    ({ app, redis, smtp, inspector } = fault);
    proxy = fault.proxy!;
  }, 30_000);

  afterAll(async () => {
    await fault?.close();
  }, 30_000);

  test('503, nothing billed, and its lease is given back once Redis is reachable again', async () => {
    const org = await meteredOrganization(app, smtp, 'redis-cut@faults.test');
    const live = (await org.key()).key;
    await changePlan(app, org.orgId, { allowance: 10_000, rpmLive: 100_000 });
    const call = (path: string, body: Record<string, unknown>) => timedCall(app.url, path, live, body, path, 15_000);

    expect((await call('/test/search', { query: 'takes a lease' })).status).toBe(200);
    const [first] = await chargesOf(app, org.orgId);
    const leaseId = first!.charge_id.slice(0, 28);
    const leasesKey = counterKeys.leases(redisKeyspace(app.config), org.orgId, month);
    expect(Object.keys(await inspector.hGetAll(leasesKey))).toEqual([leaseId]);

    const extraction = call('/test/extract', { urls: ['https://x/ok', 'https://x/also-ok'], delay_ms: 1_500 });
    await sleep(300);
    proxy.cut();
    const answer = await extraction;
    expect(answer.status).toBe(503);
    proxy.resume();

    await eventually(
      'served again',
      () => call('/test/search', { query: 'after' }),
      (o) => o.status === 200,
      10_000,
    );
    // The lease of the cut connection is retired; once its last call is done it is returned: gone from Redis.
    await eventually(
      'the lease returned',
      () => inspector.hGetAll(leasesKey),
      (leases) => !(leaseId in leases),
      5_000,
    );
    const charges = await chargesOf(app, org.orgId);
    expect(charges.map((c) => c.operation)).toEqual(['search', 'search']);
    await expectLedgerAgrees(app, redis.url, 10_000);
  }, 60_000);
});
