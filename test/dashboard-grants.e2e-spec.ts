import { DEVICES, dashboardRig, describeBrowser, horizontalOverflow, screenshot } from './support/dashboard-browser.js';
import { changePlan, grantCredits } from './support/metering-fixture.js';
import { call } from './support/test-app.js';

/**
 * The plan page (members and plan) shows the organization's credit grants, with what each paid and has left this
 * month and when it expires, and its overage (cap, price, used), at desktop and phone widths.
 */
describeBrowser('the dashboard shows credit grants and overage on the plan page', () => {
  const rig = dashboardRig({ owner: 'owner@grants-dashboard.test' });

  /** An organization of the owner's with a plan of 2 credits, an overage cap, two grants, and a live key. */
  const organization = async (name: string) => {
    const token = rig.owner.session;
    const org = await call(rig.app.url, 'POST', '/orgs', { token, body: { name } });
    expect(org.status).toBe(201);
    const orgId = org.body.id as string;
    await changePlan(rig.app, orgId, { allowance: 2, overage: { credit_cap: 10, price_per_credit: '0.008' } });
    const expiring = new Date(Date.UTC(2999, 0, 31));
    await grantCredits(rig.app, orgId, { credits: 3, expiresAt: expiring, note: 'pilot' });
    await grantCredits(rig.app, orgId, { credits: 5, monthly: true });
    const project = await call(rig.app.url, 'POST', `/orgs/${orgId}/projects`, { token, body: { name: 'Main' } });
    const key = await call(rig.app.url, 'POST', `/orgs/${orgId}/api-keys`, {
      token,
      body: { name: 'k', project_id: project.body.id },
    });
    return { orgId, key: key.body.key as string };
  };

  for (const [device, viewport] of DEVICES) {
    test(`Plan page (${device}): grants with used, remaining and expiry; overage with its cap and price`, async () => {
      const { orgId, key } = await organization(`Grants ${device}`);
      // 2 from the allowance, 3 from the grant that expires (first), 1 from the monthly grant.
      for (let i = 0; i < 6; i++) {
        const searched = await call(rig.app.url, 'POST', '/search', { token: key, body: { query: `g ${i}` } });
        expect(searched.status).toBe(200);
      }
      // GET /usage answers once the read models include every call answered before it.
      expect((await call(rig.app.url, 'GET', '/usage', { token: key })).body.account.plan_usage).toBe(6);
      const { context, page, errors } = await rig.signedIn(viewport);
      await page.goto(`/dashboard/orgs/${orgId}/members`);
      await page.getByRole('heading', { name: 'Credit grants' }).waitFor();
      const rows = page.locator('table.responsive', { hasText: 'pilot' }).locator('tbody tr');
      await expect(rows.count()).resolves.toBe(2);
      const cells = async (text: string) =>
        rows
          .filter({ hasText: text })
          .locator('td')
          .evaluateAll((tds) => Object.fromEntries(tds.map((td) => [td.dataset.label, td.textContent])));
      await expect(cells('pilot')).resolves.toMatchObject({
        Renews: 'once',
        'Used this month': '3',
        Remaining: '0',
        Status: 'spent',
      });
      await expect(cells('every month')).resolves.toMatchObject({
        Credits: '5',
        'Used this month': '1',
        Remaining: '4',
        Expires: 'never',
        Status: 'active',
      });
      expect(await page.locator('#overage').textContent()).toBe(
        'Pay-as-you-go past the allowance and grants: 0 of 10 credits this month, at 0.008 a credit (0 so far).',
      );
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `60-plan-grants-overage-${device}`);
      // The usage gauge counts against the month's limit, and says what it counts: 2 + (3 + 5) + 10.
      await page.goto(`/dashboard/orgs/${orgId}/usage`);
      await page.locator('#gauge-caption').waitFor();
      expect(await page.locator('#gauge-caption').textContent()).toBe(
        '6 of 20 live credits used (30%); the limit is allowance 2 + grants 8 + overage cap 10',
      );
      expect(await page.locator('#credits-limit').textContent()).toBe('20');
      expect(await page.locator('#credits-left').textContent()).toBe('14');
      expect(await page.locator('#limit-grants').textContent()).toBe('8');
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `61-usage-limit-${device}`);
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});
