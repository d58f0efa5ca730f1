import { randomUUID } from 'node:crypto';
import { ProjectionRunner } from '../projections/projection-runner.js';
import { toNewEvent } from '../src/event-store/domain-event.js';
import { EVENT_STORE, type EventStore } from '../src/event-store/event-store.port.js';
import { billingMonth } from '../src/metering/counter-keys.js';
import { type CreditsCharged, chargesStream } from '../src/metering/events/credits-charged.event.js';
import { StatementCloser } from '../src/metering/statements/statement-closer.js';
import { type LedgerAdjusted, adjustmentsStream } from '../src/metering/statements/statement.events.js';
import { DEVICES, dashboardRig, describeBrowser, horizontalOverflow, screenshot } from './support/dashboard-browser.js';
import { call } from './support/test-app.js';

const monthsAgo = (back: number) => {
  const now = new Date();
  return billingMonth(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)));
};
const M1 = monthsAgo(3);
const M2 = monthsAgo(2);
const monthName = (month: string) =>
  new Date(`${month}-01T00:00:00Z`).toLocaleString('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });

/** Statements in the dashboard: the list of closed months, one month's statement with its adjustments, its CSV. */
describeBrowser('the dashboard shows closed months as statements', () => {
  const rig = dashboardRig({ owner: 'owner@statements.test', env: { STATEMENT_GRACE_DAYS: '0' } });

  beforeAll(async () => {
    const { app, owner } = rig;
    const store = app.app.get<EventStore>(EVENT_STORE);
    const key = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, {
      token: owner.session,
      body: { name: 'Agent', project_id: owner.projectId },
    });
    const charge = (credits: number, month: string, at: string) => {
      const data: CreditsCharged['data'] = {
        charge_id: randomUUID(),
        org_id: owner.orgId,
        project_id: owner.projectId,
        key_id: key.body.id,
        key_environment: 'live',
        operation: 'search',
        channel: 'rest',
        depth: 'basic',
        credits,
        request_id: randomUUID(),
        idempotency_key: null,
        billing_month: month,
        counts: { results: 5 },
        pricing: { items: [{ item: 'search:basic', credits }], units: null },
      };
      return toNewEvent(
        { type: 'CreditsCharged', data } satisfies CreditsCharged,
        { type: 'api_key', id: data.key_id },
        {
          occurredAt: new Date(at),
        },
      );
    };
    await store.appendToStream(
      chargesStream(owner.orgId, M1),
      [charge(2, M1, `${M1}-03T10:00:00Z`), charge(3, M1, `${M1}-04T10:00:00Z`)],
      'any',
    );
    await store.appendToStream(chargesStream(owner.orgId, M2), [charge(1, M2, `${M2}-02T10:00:00Z`)], 'any');
    await app.app.get(ProjectionRunner).waitForHead(10_000);
    const closer = app.app.get(StatementCloser);
    await closer.close(owner.orgId, M1, { type: 'system', id: 'test' });
    // A charge of M1 settling after M1 closed: booked in the month open now.
    await store.appendToStream(chargesStream(owner.orgId, M1), [charge(4, M1, new Date().toISOString())], 'any');
    const correction: LedgerAdjusted = {
      type: 'LedgerAdjusted',
      data: {
        adjustment_id: randomUUID(),
        org_id: owner.orgId,
        month: M2,
        corrects_month: M1,
        credits: -1,
        reason: 'Refund: outage',
      },
    };
    await store.appendToStream(
      adjustmentsStream(owner.orgId),
      [toNewEvent(correction, { type: 'operator', id: 'alice' }, { occurredAt: new Date(`${M2}-20T10:00:00Z`) })],
      'any',
    );
    await app.app.get(ProjectionRunner).waitForHead(10_000);
    await closer.close(owner.orgId, M2, { type: 'system', id: 'test' });
    await app.app.get(ProjectionRunner).waitForHead(10_000);
  }, 60_000);

  for (const [device, viewport] of DEVICES) {
    test(`Statements (${device}): the list, one month with its adjustment, its CSV`, async () => {
      const { context, page, errors } = await rig.signedIn(viewport);
      try {
        await page.goto(`/dashboard/orgs/${rig.owner.orgId}/usage`);
        await page.getByRole('link', { name: 'Statements' }).click();
        await page.getByRole('heading', { name: /Statements of/ }).waitFor();
        const rows = page.locator('tbody tr');
        await expect(rows.count()).resolves.toBe(2);
        await expect(rows.nth(0).locator('[data-total="billable"]').textContent()).resolves.toBe('0 credits');
        await expect(rows.nth(1).locator('[data-total="billable"]').textContent()).resolves.toBe('5 credits');
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        await screenshot(page, `60-statements-${device}`);

        await page.getByRole('link', { name: monthName(M2) }).click();
        await page.getByRole('heading', { name: `Statement for ${monthName(M2)}` }).waitFor();
        await expect(page.locator('#statement-totals [data-total="billable"]').textContent()).resolves.toBe(
          '0 credits',
        );
        await page.getByRole('cell', { name: 'Refund: outage' }).waitFor();
        await page.getByRole('cell', { name: 'operator alice' }).waitFor();
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        await screenshot(page, `61-statement-${device}`);

        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('button', { name: 'Download CSV' }).click(),
        ]);
        let text = '';
        for await (const chunk of await download.createReadStream()) text += String(chunk);
        expect(download.suggestedFilename()).toBe(`statement-${rig.owner.orgId}-${M2}.csv`);
        expect(text.split('\r\n')[0]).toBe(
          'Record,Month,Environment,Billable,Project,Key,Operation,Corrects month,Reason,Actor,Reference,Charges,Credits',
        );
        expect(text).toContain(`correction,${M2},live,yes,,,,${M1},Refund: outage,operator:alice,`);
        await page.getByRole('status').filter({ hasText: 'Downloaded' }).waitFor();

        await page.getByRole('link', { name: '← All statements' }).click();
        await page.getByRole('link', { name: monthName(M1) }).click();
        await page.getByRole('heading', { name: `Statement for ${monthName(M1)}` }).waitFor();
        await page.getByText('No adjustments in this month.').waitFor();

        await page.goto(`/dashboard/orgs/${rig.owner.orgId}/ledger`);
        await page.getByText(`late charge of ${monthName(M1)}`).waitFor();
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
