import { ALERT_TEST_ENV } from './support/alert-test-env.js';
import { DEVICES, dashboardRig, describeBrowser, horizontalOverflow, screenshot } from './support/dashboard-browser.js';
import { eventually } from './support/eventually.js';
import { addMember, call } from './support/test-app.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

/**
 * Alerts in the dashboard: owners set a limit's thresholds and add a webhook endpoint (its secret shown once); a key's
 * limit crossed shows as alerts sent, and the endpoint's delivery log shows each delivery and replays one. Members
 * see it all without the forms. Each screen at desktop and phone widths.
 */
describeBrowser('the dashboard shows alerts, thresholds and webhook deliveries', () => {
  const rig = dashboardRig({ owner: 'owner@alerts.test', env: ALERT_TEST_ENV });
  const receivers: WebhookReceiver[] = [];
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.stop()));
  });
  const get = async (path: string) =>
    (await call(rig.app.url, 'GET', `/orgs/${rig.owner.orgId}${path}`, { token: rig.owner.session })).body;

  for (const [device, viewport] of DEVICES) {
    test(`Alerts (${device}): thresholds set, an endpoint added, a key's limit crossed, delivered, replayed`, async () => {
      const { context, page, errors } = await rig.signedIn(viewport);
      const org = rig.owner.orgId;
      await page.goto(`/dashboard/orgs/${org}/alerts`);
      await page.getByRole('heading', { name: /^Alerts of / }).waitFor();

      // Thresholds of the allowance: refused inline when not percentages, then saved as an event.
      await page.getByLabel('Limit').selectOption({ label: 'Organization allowance' });
      const input = page.getByLabel('Thresholds (%)');
      await input.fill('half');
      await page.getByRole('button', { name: 'Save thresholds' }).click();
      await page.getByText('Thresholds are whole percentages from 1 to 1000').waitFor();
      await expect(input.getAttribute('aria-invalid')).resolves.toBe('true');
      await input.fill(device === 'desktop' ? '90, 60' : '75');
      await page.getByRole('button', { name: 'Save thresholds' }).click();
      const saved = device === 'desktop' ? '60 %, 90 %' : '75 %';
      await page.getByText(`Alert thresholds of Organization allowance set to ${saved}.`).waitFor();
      expect((await get('/alert-thresholds')).thresholds[0]).toMatchObject({
        scope: 'organization',
        thresholds: device === 'desktop' ? [60, 90] : [75],
      });

      // An endpoint: a private address is refused in the form; the receiver's is added, its secret shown once.
      const receiver = await WebhookReceiver.start();
      receivers.push(receiver);
      await page.getByLabel('Endpoint URL').fill('http://10.0.0.1/hooks');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByText(/^url refused: /).waitFor();
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByLabel('Description (optional)').fill(`receiver ${device}`);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      receiver.secret = await page.getByLabel('Signing secret').inputValue();
      expect(receiver.secret).toMatch(/^whsec_/);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `70-webhook-secret-${device}`);
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('link', { name: `Delivery log of ${receiver.url}` }).waitFor();

      // A key with a limit of 2 used up: its 50, 80 and 100 % alerts, each delivered to this endpoint.
      const name = `Agent ${device}`;
      const created = await call(rig.app.url, 'POST', `/orgs/${org}/api-keys`, {
        token: rig.owner.session,
        body: { name, project_id: rig.owner.projectId, monthly_credit_limit: 2 },
      });
      for (let i = 0; i < 2; i++) {
        const answered = await call(rig.app.url, 'POST', '/search', {
          token: created.body.key,
          body: { query: `alert ${i}` },
        });
        expect(answered.status).toBe(200);
      }
      await eventually(
        'three deliveries',
        () => receiver.accepted.size,
        (size) => size === 3,
      );
      await page.reload();
      const sent = page.locator('table.responsive', { has: page.locator('caption', { hasText: 'Alerts sent' }) });
      await sent
        .locator('tbody tr', { hasText: `Key “${name}”` })
        .first()
        .waitFor();
      expect(await sent.locator('tbody tr', { hasText: `Key “${name}”` }).count()).toBe(3);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `71-alerts-${device}`);

      // The delivery log: three delivered at the first attempt; one replayed, delivered again with its event id.
      await page.getByRole('link', { name: `Delivery log of ${receiver.url}` }).click();
      await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
      const rows = page.locator('table.responsive tbody tr');
      await expect(rows.count()).resolves.toBe(3);
      expect(await rows.locator('td[data-label="Attempts"]').allTextContents()).toEqual(Array(3).fill('#1: 200'));
      const eventId = (await rows.first().locator('td[data-label="Event id"]').textContent())!;
      await page.getByRole('button', { name: `Replay ${eventId}` }).click();
      await page.getByText('Sent again: the attempt shows here in a moment.').waitFor();
      await eventually(
        'the replay',
        () => receiver.duplicates,
        (count) => count === 1,
      );
      await page.reload();
      await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
      await expect(rows.filter({ hasText: eventId }).locator('td[data-label="Attempts"]').textContent()).resolves.toBe(
        '#1: 200 · #2: 200',
      );
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `72-delivery-log-${device}`);
      expect(errors).toEqual([]);
      await context.close();
    }, 90_000);
  }

  test('a member sees the alerts and endpoints, without the forms or the replay', async () => {
    const member = await addMember(rig.app, rig.smtp, rig.owner, 'member@alerts.test');
    const { context, page, errors } = await rig.signedIn(DEVICES[1][1], member);
    await page.goto(`/dashboard/orgs/${rig.owner.orgId}/alerts`);
    await page.getByText('Owners and admins add webhook endpoints.').waitFor();
    expect(await page.getByRole('button', { name: 'Save thresholds' }).count()).toBe(0);
    const webhooks = (await get('/webhooks')).webhooks as { id: string; url: string }[];
    await page.getByRole('link', { name: `Delivery log of ${webhooks[0]!.url}` }).click();
    await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
    expect(await page.getByRole('button', { name: /^Replay / }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
