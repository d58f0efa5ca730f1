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
 * Redis runs commands and their answers are lost (the link fails on the way back, then the connection drops): the
 * node cannot tell whether they ran. A call that cannot tell answers 503 and is not billed, and what its command
 * changed in Redis is taken back (a volume-priced call's units would otherwise count towards the next calls' price
 * tier). The credit-lease steps sent meanwhile go again once Redis is back, and must count once (a settlement
 * counted twice takes credits from the allowance for the month); a lease granted with its answer lost must not hold
 * credits nobody can spend.
 */
describe('a Redis answer lost after the command ran: the counters still agree with the ledger', () => {
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

  test('the call answers 503 unbilled, and what its commands did in Redis is taken back', async () => {
    const org = await meteredOrganization(app, smtp, 'redis-lost-reply@faults.test');
    const live = (await org.key()).key;
    await changePlan(app, org.orgId, { allowance: 10_000, rpmLive: 100_000 });
    const call = (path: string, body: Record<string, unknown>) => timedCall(app.url, path, live, body, path, 20_000);

    expect((await call('/test/extract', { urls: ['https://x/warm'] })).status).toBe(200);
    // Priced after its work: its units counter is incremented while Redis's answers are lost.
    const extraction = call('/test/extract', { urls: ['https://x/a', 'https://x/b', 'https://x/c'], delay_ms: 600 });
    await sleep(300);
    proxy.muteReplies();
    await sleep(1_000);
    proxy.cut();
    const answer = await extraction;
    proxy.resume();
    expect(answer.status).toBe(503);

    await eventually(
      'served again',
      () => call('/test/extract', { urls: ['https://x/after'] }),
      (o) => o.status === 200,
      10_000,
    );
    const charges = await chargesOf(app, org.orgId);
    expect(charges.map((c) => c.request_id)).not.toContain(answer.requestId);
    expect(charges).toHaveLength(2);

    await expectLedgerAgrees(app, redis.url);
  }, 60_000);

  test('lease steps sent again count once; a lease granted unanswered is given back', async () => {
    const org = await meteredOrganization(app, smtp, 'redis-lost-lease-replies@faults.test');
    const live = (await org.key()).key;
    await changePlan(app, org.orgId, { allowance: 10_000, rpmLive: 100_000 });
    const call = (body: Record<string, unknown>) => timedCall(app.url, '/test/search', live, body, 'search', 20_000);

    for (let i = 0; i < 3; i++) expect((await call({ query: `warm ${i}` })).status).toBe(200);
    // Charged while the answers are lost: their settlements (and leases asked for meanwhile) run unanswered.
    const inFlight = Promise.all(
      Array.from({ length: 6 }, (_, i) => call({ query: `f${i}`, delay_ms: 100 + i * 150 })),
    );
    await sleep(50);
    proxy.muteReplies();
    const during = Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        sleep(i * 200).then(() => call({ query: `d${i}`, search_depth: 'advanced' })),
      ),
    );
    await sleep(1_200);
    proxy.cut();
    const outcomes = [...(await inFlight), ...(await during)];
    proxy.resume();
    for (const o of outcomes) expect([200, 503]).toContain(o.status);

    await eventually(
      'served again',
      () => call({ query: 'after' }),
      (o) => o.status === 200,
      10_000,
    );
    const charges = await chargesOf(app, org.orgId);
    expect(charges).toHaveLength(3 + outcomes.filter((o) => o.status === 200).length + 1);
    await expectLedgerAgrees(app, redis.url);
    // Once the last lease has expired and gone back, none is outstanding in Redis: none was left behind unknown.
    const leasesKey = counterKeys.leases(redisKeyspace(app.config), org.orgId, month);
    await eventually(
      'no lease outstanding',
      () => inspector.hGetAll(leasesKey),
      (leases) => Object.keys(leases).length === 0,
      20_000,
      500,
    );
    // Receipts go with the next batch once their answer has arrived: the last one at most is left.
    expect(await inspector.keys(`${app.config.redisPrefix}lease-receipt:*`)).toHaveLength(1);
  }, 90_000);

  test('an Idempotency-Key claimed with its answer lost: a retry with the key is served, not held "in progress"', async () => {
    const org = await meteredOrganization(app, smtp, 'redis-lost-claim@faults.test');
    const live = (await org.key()).key;
    await changePlan(app, org.orgId, { allowance: 10_000, rpmLive: 100_000 });
    const idempotent = () =>
      fetch(`${app.url}/test/search`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${live}`,
          'idempotency-key': 'lost-claim-1',
        },
        body: JSON.stringify({ query: 'claimed unanswered' }),
        signal: AbortSignal.timeout(20_000),
      });
    expect((await timedCall(app.url, '/test/search', live, { query: 'warm' }, 'warm', 20_000)).status).toBe(200);

    proxy.muteReplies();
    const first = idempotent();
    await sleep(1_000);
    proxy.cut();
    expect((await first).status).toBe(503);
    proxy.resume();

    const retried = await eventually('the retry served', idempotent, (response) => response.status !== 503, 10_000);
    expect(retried.status).toBe(200);
    const replayed = await idempotent();
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await chargesOf(app, org.orgId)).toHaveLength(2);
    await expectLedgerAgrees(app, redis.url);
  }, 60_000);
});
