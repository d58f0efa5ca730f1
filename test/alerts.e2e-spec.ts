import { Database } from '../src/database/database.js';
import { EVENT_STORE, type EventStore } from '../src/event-store/event-store.port.js';
import { ProjectionRunner } from '../projections/projection-runner.js';
import { AlertLimits } from '../src/alerts/alert-limits.js';
import { AlertOutbox } from '../src/alerts/alert-outbox.js';
import { ThresholdWatcher } from '../src/alerts/threshold-watcher.js';
import { alertCrossedStream } from '../src/alerts/events/alert.events.js';
import { WebhookSecretCipher } from '../src/alerts/webhooks/webhook-secret-cipher.js';
import { WebhookSecretsSealer } from '../src/alerts/webhooks/webhook-secrets-sealer.js';
import { eventually } from './support/eventually.js';
import { changePlan, meteredOrganization } from './support/metering-fixture.js';
import { MeteredTestRoutesModule } from './support/metered-test-routes.js';
import { addMember, call, startTestApp, useTestApp } from './support/test-app.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { ALERT_TEST_ENV } from './support/alert-test-env.js';

const month = () => new Date().toISOString().slice(0, 7);

/**
 * Alerts before the cut-off: thresholds per limit, exactly one AlertThresholdCrossed per organization, scope, month
 * and threshold, delivered to signed webhooks (checked by a receiver as a customer's would) and by e-mail to owners.
 * Run with Redis (services mode) and with the in-process counters (embedded mode).
 */
describe.each([
  ['services mode (Redis)', true],
  ['in-process counters (embedded mode)', false],
])('alerts and webhooks: %s', (_mode, redis) => {
  let n = 0;
  const receivers: WebhookReceiver[] = [];

  const app = useTestApp({
    redis,
    env: ALERT_TEST_ENV,
    modules: [MeteredTestRoutesModule],
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.stop()));
  });

  const organization = async () => {
    const email = `alerts-${redis ? 'r' : 'm'}-${n++}@a.test`;
    return { email, ...(await meteredOrganization(app, app.smtp, email)) };
  };
  const search = (key: string, i: number) =>
    call(app.url, 'POST', '/test/search', { token: key, body: { query: `q${i}` } });
  const receiver = async (answer?: (request: number) => number | 'stall') => {
    const started = await WebhookReceiver.start(answer);
    receivers.push(started);
    return started;
  };
  const register = async (org: { orgId: string; session: string }, to: WebhookReceiver) => {
    const created = await call(app.url, 'POST', `/orgs/${org.orgId}/webhooks`, {
      token: org.session,
      body: { url: to.url, description: 'test receiver' },
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
    to.secret = created.body.secret as string;
    return created.body.id as string;
  };
  const deliveries = async (org: { orgId: string; session: string }, webhookId: string) =>
    (await call(app.url, 'GET', `/orgs/${org.orgId}/webhooks/${webhookId}/deliveries`, { token: org.session })).body
      .deliveries as {
      id: string;
      event_id: string;
      status: string;
      attempts: { attempt: number; status_code: number | null; error: string | null }[];
    }[];

  test('thresholds: the defaults, set by owners as events, validated, refused to members', async () => {
    const org = await organization();
    const listed = await call(app.url, 'GET', `/orgs/${org.orgId}/alert-thresholds`, { token: org.session });
    expect(listed.status).toBe(200);
    expect(listed.body.thresholds).toEqual([
      { scope: 'organization', id: org.orgId, thresholds: [50, 80, 100], default: true },
    ]);
    const key = await org.key({ monthly_credit_limit: 10 });
    const set = await call(app.url, 'PUT', `/orgs/${org.orgId}/alert-thresholds`, {
      token: org.session,
      body: { scope: 'key', id: key.id, thresholds: [90, 25] },
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ scope: 'key', id: key.id, thresholds: [25, 90], default: false });
    const after = await call(app.url, 'GET', `/orgs/${org.orgId}/alert-thresholds`, { token: org.session });
    expect(after.body.thresholds).toContainEqual({ scope: 'key', id: key.id, thresholds: [25, 90], default: false });

    for (const body of [
      { scope: 'key', thresholds: [50] },
      { scope: 'organization', thresholds: [0] },
      { scope: 'organization', thresholds: [50, 50] },
      { scope: 'organization', thresholds: ['50'] },
      { scope: 'team', thresholds: [50] },
    ]) {
      const refused = await call(app.url, 'PUT', `/orgs/${org.orgId}/alert-thresholds`, { token: org.session, body });
      expect(refused.status).toBe(400);
      expect(refused.body.detail.error).toBe(refused.body.error);
    }
    const other = await organization();
    const foreign = await call(app.url, 'PUT', `/orgs/${other.orgId}/alert-thresholds`, {
      token: other.session,
      body: { scope: 'key', id: key.id, thresholds: [50] },
    });
    expect(foreign.status).toBe(404);
    const member = await addMember(app, app.smtp, org, `member-${n++}@a.test`);
    const byMember = await call(app.url, 'PUT', `/orgs/${org.orgId}/alert-thresholds`, {
      token: member,
      body: { scope: 'organization', thresholds: [10] },
    });
    expect(byMember.status).toBe(404);
    expect(
      (
        await call(app.url, 'POST', `/orgs/${org.orgId}/webhooks`, {
          token: member,
          body: { url: 'http://127.0.0.1:1/' },
        })
      ).status,
    ).toBe(404);
  });

  test('20 concurrent calls: one event per scope and threshold, one signed delivery each, an e-mail to the owner', async () => {
    const org = await organization();
    await changePlan(app, org.orgId, { allowance: 20 });
    const put = await call(app.url, 'PUT', `/orgs/${org.orgId}/alert-thresholds`, {
      token: org.session,
      body: { scope: 'organization', thresholds: [50] },
    });
    expect(put.status).toBe(200);
    const hooks = await receiver();
    const webhookId = await register(org, hooks);
    const key = await org.key({ monthly_credit_limit: 10 });

    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => search(key.key, i)));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(10);

    // The key's 50, 80 and 100 % and the organization's 50 % (10 of 20).
    const expected = ['key:50', 'key:80', 'key:100', 'organization:50'];
    const alerts = await eventually(
      'the four alerts',
      async () => (await call(app.url, 'GET', `/orgs/${org.orgId}/alerts`, { token: org.session })).body.alerts,
      (list: { id: string; scope: string; threshold: number }[]) => list.length >= 4,
    );
    expect(alerts.map((a: { scope: string; threshold: number }) => `${a.scope}:${a.threshold}`).sort()).toEqual(
      [...expected].sort(),
    );
    expect(alerts.find((a: { scope: string }) => a.scope === 'organization')).toMatchObject({
      scope_id: org.orgId,
      billing_month: month(),
      credits_limit: 20,
    });

    await eventually(
      'four accepted webhooks',
      () => hooks.accepted.size,
      (size) => size === 4,
    );
    expect(hooks.refused).toEqual([]);
    expect(hooks.duplicates).toBe(0);
    expect(new Set(hooks.received.map((r) => r.eventId))).toEqual(new Set(alerts.map((a: { id: string }) => a.id)));
    const body = hooks.received.find((r) => (r.body.data as { scope: string }).scope === 'organization')!.body;
    expect(body).toMatchObject({
      type: 'alert.threshold_crossed',
      data: { org_id: org.orgId, scope: 'organization', threshold: 50, credits_limit: 20 },
    });

    const mail = await app.smtp.waitForMail(org.email);
    expect(mail.subject).toMatch(/^Usage alert: \d+% of /);

    // A replay of every event (the checkpoint moved back to the start, as for another node that follows them) records
    // and delivers nothing new.
    const db = app.app.get(Database);
    await db.query(
      "UPDATE projection_checkpoints SET commit_position = 0, prepare_position = 0 WHERE name = 'alert_watch'",
    );
    // A watcher of its own, as another node's or a restarted one's: nothing remembered of what was recorded.
    const watcher = new ThresholdWatcher(
      db,
      app.app.get<EventStore>(EVENT_STORE),
      app.app.get(ProjectionRunner),
      app.app.get(AlertLimits),
      app.app.get(AlertOutbox),
      app.config,
    );
    await eventually(
      'a pass of its own',
      () => watcher.pass(),
      (ran) => ran,
      15_000,
      10,
    );
    const store = app.app.get<EventStore>(EVENT_STORE);
    const stream = alertCrossedStream(org.orgId, 'organization', org.orgId, month(), 50);
    expect(await store.readStream(stream)).toHaveLength(1);
    const again = (await call(app.url, 'GET', `/orgs/${org.orgId}/alerts`, { token: org.session })).body.alerts;
    expect(again).toHaveLength(4);
    const log = await deliveries(org, webhookId);
    expect(log).toHaveLength(4);
    expect(log.every((d) => d.status === 'succeeded' && d.attempts.length === 1)).toBe(true);
    expect(log[0]!.attempts[0]!.status_code).toBe(200);
  });

  test('a 500 is retried with backoff; replay sends the same event again', async () => {
    const org = await organization();
    await changePlan(app, org.orgId, { allowance: 4 });
    await call(app.url, 'PUT', `/orgs/${org.orgId}/alert-thresholds`, {
      token: org.session,
      body: { scope: 'organization', thresholds: [50] },
    });
    const hooks = await receiver((request) => (request === 0 ? 500 : 200));
    const webhookId = await register(org, hooks);
    const key = await org.key();
    for (let i = 0; i < 2; i++) expect((await search(key.key, i)).status).toBe(200);

    const [delivery] = await eventually(
      'the delivery, retried',
      () => deliveries(org, webhookId),
      (log) => log[0]?.status === 'succeeded',
    );
    expect(delivery!.attempts.map((a) => a.status_code)).toEqual([500, 200]);
    expect(hooks.received.map((r) => r.eventId)).toEqual([delivery!.event_id, delivery!.event_id]);

    const replayed = await call(
      app.url,
      'POST',
      `/orgs/${org.orgId}/webhooks/${webhookId}/deliveries/${delivery!.id}/replay`,
      {
        token: org.session,
      },
    );
    expect(replayed.status).toBe(202);
    await eventually(
      'the replay',
      () => deliveries(org, webhookId),
      (log) => log[0]?.attempts.length === 3,
    );
    expect(hooks.duplicates).toBe(1);
    const missing = await call(
      app.url,
      'POST',
      `/orgs/${org.orgId}/webhooks/${webhookId}/deliveries/00000000-0000-4000-8000-000000000000/replay`,
      { token: org.session },
    );
    expect(missing.status).toBe(404);
  });

  test('a signing secret is stored encrypted; one stored in plaintext before is still used, then sealed on start', async () => {
    const org = await organization();
    await changePlan(app, org.orgId, { allowance: 4 });
    await call(app.url, 'PUT', `/orgs/${org.orgId}/alert-thresholds`, {
      token: org.session,
      body: { scope: 'organization', thresholds: [50] },
    });
    const hooks = await receiver();
    const webhookId = await register(org, hooks);
    const db = app.app.get(Database);
    const stored = async () =>
      (await db.query<{ secret: string }>('SELECT secret FROM webhook_endpoints WHERE endpoint_id = $1', [webhookId]))
        .rows[0]!.secret;
    const sealed = await stored();
    expect(sealed).toMatch(/^v1:[0-9a-f]{8}:/);
    expect(sealed).not.toContain(hooks.secret);
    expect(app.app.get(WebhookSecretCipher).open(webhookId, sealed)).toBe(hooks.secret);

    // As a row written before encryption: the plaintext. Deliveries are signed with it all the same.
    await db.query('UPDATE webhook_endpoints SET secret = $2 WHERE endpoint_id = $1', [webhookId, hooks.secret]);
    const key = await org.key();
    for (let i = 0; i < 2; i++) expect((await search(key.key, i)).status).toBe(200);
    await eventually(
      'the delivery, signed with the plaintext secret',
      () => hooks.accepted.size,
      (size) => size === 1,
    );
    expect(hooks.refused).toEqual([]);
    // A node's start seals it; a pass after that finds nothing left.
    const second = await startTestApp({
      redis,
      schema: app.schema,
      env: { SMTP_URL: app.smtp.url, ...ALERT_TEST_ENV },
    });
    await second.close();
    expect(await app.app.get(WebhookSecretsSealer).sealPlaintext()).toBe(0);
    const resealed = await stored();
    expect(resealed).toMatch(/^v1:/);
    expect(app.app.get(WebhookSecretCipher).open(webhookId, resealed)).toBe(hooks.secret);
  });

  test('a webhook gives up after its retry schedule', async () => {
    const org = await organization();
    await changePlan(app, org.orgId, { allowance: 2 });
    await call(app.url, 'PUT', `/orgs/${org.orgId}/alert-thresholds`, {
      token: org.session,
      body: { scope: 'organization', thresholds: [50] },
    });
    const hooks = await receiver(() => 503);
    const webhookId = await register(org, hooks);
    expect((await search((await org.key()).key, 0)).status).toBe(200);
    const [delivery] = await eventually(
      'the delivery, failed',
      () => deliveries(org, webhookId),
      (log) => log[0]?.status === 'failed',
    );
    expect(delivery!.attempts.map((a) => a.status_code)).toEqual([503, 503, 503]);
  });

  test('a private, loopback or metadata address is refused at registration and at delivery', async () => {
    const org = await organization();
    for (const url of [
      'http://10.1.2.3/hooks',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:8080/',
      'http://127.0.0.2:9/',
      'http://metadata.google.internal/',
    ]) {
      const refused = await call(app.url, 'POST', `/orgs/${org.orgId}/webhooks`, { token: org.session, body: { url } });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(/^url refused: /);
    }
    for (const url of ['ftp://example.com/', 'not a url', 'http://user:pw@127.0.0.1:1/']) {
      const refused = await call(app.url, 'POST', `/orgs/${org.orgId}/webhooks`, { token: org.session, body: { url } });
      expect(refused.status).toBe(400);
    }
    const listed = await call(app.url, 'GET', `/orgs/${org.orgId}/webhooks`, { token: org.session });
    expect(listed.body.webhooks).toEqual([]);

    // An endpoint whose address is no longer allowed when it is delivered to (as after a DNS change).
    const hooks = await receiver();
    const webhookId = await register(org, hooks);
    const db = app.app.get(Database);
    await db.query('UPDATE webhook_endpoints SET url = $2 WHERE endpoint_id = $1', [
      webhookId,
      hooks.url.replace('127.0.0.1', '127.0.0.2'),
    ]);
    await changePlan(app, org.orgId, { allowance: 2 });
    await call(app.url, 'PUT', `/orgs/${org.orgId}/alert-thresholds`, {
      token: org.session,
      body: { scope: 'organization', thresholds: [50] },
    });
    expect((await search((await org.key()).key, 0)).status).toBe(200);
    const [delivery] = await eventually(
      'the refused attempt',
      () => deliveries(org, webhookId),
      (log) => (log[0]?.attempts.length ?? 0) > 0,
    );
    expect(delivery!.attempts[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/Refused/) });
    expect(hooks.received).toEqual([]);

    const removed = await call(app.url, 'DELETE', `/orgs/${org.orgId}/webhooks/${webhookId}`, { token: org.session });
    expect(removed.status).toBe(204);
    expect(
      (await call(app.url, 'GET', `/orgs/${org.orgId}/webhooks/${webhookId}/deliveries`, { token: org.session }))
        .status,
    ).toBe(404);
  });
});
