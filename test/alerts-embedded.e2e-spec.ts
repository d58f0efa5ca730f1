import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app/create-app.js';
import { loadConfig } from '../src/config/app-config.js';
import { ALERT_TEST_ENV } from './support/alert-test-env.js';
import { eventually } from './support/eventually.js';
import { meteredOrganization } from './support/metering-fixture.js';
import { MeteredTestRoutesModule } from './support/metered-test-routes.js';
import { SmtpSink } from './support/smtp-sink.js';
import { type TestApp, call } from './support/test-app.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

/**
 * Alerts in the default mode itself: PGlite in-process (one transaction at a time), the in-process counters. A key's
 * limit crossed by concurrent calls gives one alert per threshold, each delivered once, signed, and mailed to the owner.
 */
describe('alerts in embedded mode (PGlite)', () => {
  let dataDir: string;
  let smtp: SmtpSink;
  let receiver: WebhookReceiver;
  let app: TestApp;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'embedded-alerts-'));
    smtp = await SmtpSink.start();
    receiver = await WebhookReceiver.start();
    const config = loadConfig({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      DEMO_SEED: 'false',
      SMTP_URL: smtp.url,
      ...ALERT_TEST_ENV,
    });
    expect(config.mode).toBe('embedded');
    const nest = await createApp(config, { modules: [MeteredTestRoutesModule] });
    await nest.listen(0, '127.0.0.1');
    const { port } = nest.getHttpServer().address() as AddressInfo;
    app = { url: `http://127.0.0.1:${port}`, app: nest, config, schema: 'public', close: () => nest.close() };
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await receiver?.stop();
    await smtp?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  test("a key's limit crossed by 10 concurrent calls: its three alerts, each delivered once and mailed", async () => {
    const org = await meteredOrganization(app, smtp, 'embedded-alerts@a.test');
    const created = await call(app.url, 'POST', `/orgs/${org.orgId}/webhooks`, {
      token: org.session,
      body: { url: receiver.url },
    });
    expect(created.status).toBe(201);
    receiver.secret = created.body.secret as string;
    const key = await org.key({ monthly_credit_limit: 4 });
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call(app.url, 'POST', '/test/search', { token: key.key, body: { query: `e${i}` } }),
      ),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(4);

    await eventually(
      'three deliveries',
      () => receiver.accepted.size,
      (size) => size === 3,
      30_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(3);
    expect(receiver.refused).toEqual([]);
    const alerts = (await call(app.url, 'GET', `/orgs/${org.orgId}/alerts`, { token: org.session })).body.alerts as {
      scope: string;
      threshold: number;
    }[];
    expect(alerts.map((a) => `${a.scope}:${a.threshold}`).sort()).toEqual(['key:100', 'key:50', 'key:80']);
    await smtp.waitForMail('embedded-alerts@a.test');
  }, 90_000);
});
