import { eventually, operatorCli, sleep, timedCall } from '../support/fault-harness.js';
import { changePlan, chargesOf, meteredOrganization } from '../support/metering-fixture.js';
import { MeteredTestRoutesModule } from '../support/metered-test-routes.js';
import { PrivateRedis } from '../support/private-redis.js';
import { SmtpSink } from '../support/smtp-sink.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { type TestApp, dropSchema, startTestApp } from '../support/test-app.js';
import { TEST_DATABASE_URL } from '../support/test-database.js';

/**
 * Redis runs a command and its answer is lost (the link fails on the way back, then the connection drops): the call
 * that sent it cannot tell whether it ran, answers 503 and is not billed. What the command changed in Redis must be
 * taken back all the same, or the counters stay off the ledger (a volume-priced call's units would count towards
 * the next calls' price tier, an allowance would lose credits).
 */
describe('a Redis answer lost after the command ran: the counters still agree with the ledger', () => {
  let redis: PrivateRedis;
  let proxy: TcpProxy;
  let smtp: SmtpSink;
  let app: TestApp;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: redis.port });
    smtp = await SmtpSink.start();
    app = await startTestApp({
      env: {
        SMTP_URL: smtp.url,
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        LOG_LEVEL: process.env.FAULT_LOG_LEVEL ?? 'silent',
      },
      modules: [MeteredTestRoutesModule],
    });
  }, 30_000);

  afterAll(async () => {
    proxy?.resume();
    await app?.close().catch(() => {});
    await proxy?.close();
    await redis?.kill();
    await smtp?.stop();
    if (app) await dropSchema(app.schema);
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

    const env = {
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: app.schema,
      REDIS_URL: redis.url,
      REDIS_PREFIX: app.config.redisPrefix,
      LOG_LEVEL: 'error',
    };
    await eventually(
      'the ledger and the counters agree',
      () => operatorCli(env, 'ledger', 'verify'),
      (result) => result.code === 0,
      15_000,
      500,
    );
    expect(await operatorCli(env, 'projections', 'verify')).toMatchObject({ code: 0, stderr: '' });
  }, 60_000);
});
