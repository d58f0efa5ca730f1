import { EVENT_STORE, type EventStore } from '../../src/event-store/event-store.port.js';
import { alertCrossedStream } from '../../src/alerts/events/alert.events.js';
import { ALERT_TEST_ENV } from '../support/alert-test-env.js';
import { AppProcess, stopAllAppProcesses } from '../support/app-process.js';
import { eventually } from '../support/eventually.js';
import { changePlan, meteredOrganization } from '../support/metering-fixture.js';
import { MeteredTestRoutesModule } from '../support/metered-test-routes.js';
import { SmtpSink } from '../support/smtp-sink.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL, uniqueName } from '../support/test-database.js';
import { type TestApp, call, dropSchema, startTestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const month = () => new Date().toISOString().slice(0, 7);

/**
 * Issue 39, item 4 across nodes: a threshold crossed by 20 concurrent calls is recorded once and delivered once,
 * with two services-mode nodes following the events and delivering; and when the node making the delivery is
 * SIGKILLed mid-attempt (the receiver stalls it), another node takes the claim over once its lease lapses and
 * delivers the same event id, which the receiver drops as a repeat if it had it already.
 */
describe('alerts on two services-mode nodes', () => {
  let smtp: SmtpSink;
  const apps: TestApp[] = [];
  const receivers: WebhookReceiver[] = [];
  const schemas: string[] = [];

  beforeAll(async () => {
    smtp = await SmtpSink.start();
  });
  afterAll(async () => {
    await stopAllAppProcesses();
    await Promise.all(apps.map((a) => a.close()));
    await Promise.all(receivers.map((r) => r.stop()));
    await smtp.stop();
    for (const schema of schemas) await dropSchema(schema);
  });

  const node = async (schema: string, env: Record<string, string> = {}) => {
    const app = await startTestApp({
      schema,
      redis: true,
      env: { SMTP_URL: smtp.url, ...ALERT_TEST_ENV, ...env },
      modules: [MeteredTestRoutesModule],
    });
    apps.push(app);
    return app;
  };
  const receiver = async (answer?: (request: number) => number | 'stall') => {
    const started = await WebhookReceiver.start(answer);
    receivers.push(started);
    return started;
  };
  const organizationWithAlert = async (app: TestApp, email: string, hooks: WebhookReceiver) => {
    const org = await meteredOrganization(app, smtp, email);
    await changePlan(app, org.orgId, { allowance: 20 });
    const set = await call(app.url, 'PUT', `/orgs/${org.orgId}/alert-thresholds`, {
      token: org.session,
      body: { scope: 'organization', thresholds: [50] },
    });
    expect(set.status).toBe(200);
    const created = await call(app.url, 'POST', `/orgs/${org.orgId}/webhooks`, {
      token: org.session,
      body: { url: hooks.url },
    });
    expect(created.status).toBe(201);
    hooks.secret = created.body.secret as string;
    return { ...org, webhookId: created.body.id as string, key: (await org.key()).key };
  };
  const crossedEvents = async (app: TestApp, orgId: string) =>
    app.app.get<EventStore>(EVENT_STORE).readStream(alertCrossedStream(orgId, 'organization', orgId, month(), 50));

  test('20 concurrent calls over two nodes: one event, one delivery', async () => {
    const schema = uniqueName('alerts2');
    schemas.push(schema);
    const [a, b] = [await node(schema), await node(schema)];
    const hooks = await receiver();
    const org = await organizationWithAlert(a, 'two-nodes@a.test', hooks);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(i % 2 ? a.url : b.url, 'POST', '/test/search', { token: org.key, body: { query: `n${i}` } }),
      ),
    );
    // 10 of 20 credits cross 50 %; however the two nodes share the allowance, the calls past it are 402.
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s !== 200 && s !== 402)).toEqual([]);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(10);
    await eventually(
      'the delivery',
      () => hooks.accepted.size,
      (size) => size === 1,
    );
    await new Promise((resolve) => setTimeout(resolve, 1000)); // room for a second (wrong) delivery to show
    expect(hooks.received).toHaveLength(1);
    expect(hooks.refused).toEqual([]);
    expect(await crossedEvents(a, org.orgId)).toHaveLength(1);
    const log = await call(b.url, 'GET', `/orgs/${org.orgId}/webhooks/${org.webhookId}/deliveries`, {
      token: org.session,
    });
    expect(log.body.deliveries).toHaveLength(1);
    expect(log.body.deliveries[0]).toMatchObject({ status: 'succeeded', event_id: hooks.received[0]!.eventId });
  });

  test('the delivering node SIGKILLed mid-attempt: another node delivers the same event once its lease lapses', async () => {
    const schema = uniqueName('alertkill');
    schemas.push(schema);
    const timeoutMs = 2000;
    // The built service follows the events and delivers (alone, at first); the in-process node serves the calls.
    const victim = await AppProcess.start({
      name: 'alerts-victim',
      env: {
        DATABASE_URL: TEST_DATABASE_URL,
        DATABASE_SCHEMA: schema,
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: `${schema}:`,
        SMTP_URL: smtp.url,
        DEMO_SEED: 'false',
        ...ALERT_TEST_ENV,
        WEBHOOK_TIMEOUT_MS: String(timeoutMs),
      },
    });
    const front = await node(schema, { RUN_PROJECTIONS: 'false', WEBHOOK_TIMEOUT_MS: String(timeoutMs) });
    const hooks = await receiver((request) => (request === 0 ? 'stall' : 200));
    const org = await organizationWithAlert(front, 'sigkill@a.test', hooks);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(front.url, 'POST', '/test/search', { token: org.key, body: { query: `k${i}` } }),
      ),
    );
    expect(responses.every((r) => r.status === 200)).toBe(true);

    await eventually(
      'the stalled first attempt',
      () => hooks.received.length,
      (count) => count === 1,
    );
    await victim.kill();
    const claimedAt = Date.now();
    const successor = await node(schema, { WEBHOOK_TIMEOUT_MS: String(timeoutMs) });
    await eventually(
      'the successor delivery',
      () => hooks.accepted.size,
      (size) => size === 1,
      30_000,
    );
    // Not before the killed node's lease (2 × timeout + 1 s) ran out.
    expect(Date.now() - claimedAt).toBeGreaterThan(timeoutMs);
    expect(hooks.received.map((r) => r.eventId)).toEqual([hooks.received[0]!.eventId, hooks.received[0]!.eventId]);
    expect(hooks.refused).toEqual([]);
    expect(await crossedEvents(successor, org.orgId)).toHaveLength(1);
    const log = await call(successor.url, 'GET', `/orgs/${org.orgId}/webhooks/${org.webhookId}/deliveries`, {
      token: org.session,
    });
    expect(log.body.deliveries).toHaveLength(1);
    expect(log.body.deliveries[0].status).toBe('succeeded');
    expect(log.body.deliveries[0].attempts).toMatchObject([{ attempt: 2, status_code: 200 }]);
  });
});
