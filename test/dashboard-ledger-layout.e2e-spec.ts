import { DEVICES, dashboardRig, describeBrowser, horizontalOverflow, screenshot } from './support/dashboard-browser.js';
import { eventually } from './support/eventually.js';
import { call, rename } from './support/test-app.js';

const CHARGES = 30;

/**
 * The ledger's layout with a full page of charges (issue 36: at 1280 px, request ids wrapped over 6 lines and prices
 * over 7, 25 rows were 4,469 px tall, and the pager was only at the bottom): a row per line, the price in words cut
 * short until opened, the request id shortened, a pager above the table and below it; no sideways scrolling at 360 px.
 */
describeBrowser('the dashboard’s ledger, a page of charges', () => {
  const rig = dashboardRig({ owner: 'owner@ledger-layout.test' });
  let requestIds: string[];

  beforeAll(async () => {
    const { app, owner } = rig;
    const created = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, {
      token: owner.session,
      body: { name: 'Crawler', project_id: owner.projectId },
    });
    const key = created.body.key as string;
    const bodies = [
      { query: 'danube', include_answer: true },
      { query: 'danube', search_depth: 'advanced', include_answer: 'advanced' },
      { query: 'danube' },
    ];
    requestIds = [];
    for (let i = 0; i < CHARGES; i++) {
      const searched = await call(app.url, 'POST', '/search', { token: key, body: bodies[i % bodies.length]! });
      expect(searched.status).toBe(200);
      requestIds.push(searched.body.request_id as string);
      // Renamed halfway: the older rows show the names as charged with today's beside them.
      if (i === CHARGES / 2) {
        await rename(app, owner, `api-keys/${created.body.id as string}`, 'Crawler (nightly batch)');
        await rename(app, owner, `projects/${owner.projectId}`, 'Research backend');
      }
    }
    await eventually(
      'every charge in the ledger',
      () => call(app.url, 'GET', `/orgs/${owner.orgId}/ledger?limit=100`, { token: owner.session }),
      (r) => r.body.entries?.length === CHARGES,
    );
  }, 120_000);

  for (const [device, viewport] of DEVICES) {
    test(`Ledger (${device}): 25 compact rows, the price opened on demand, a pager above the table and below it`, async () => {
      const { app, owner } = rig;
      const { context, page, errors } = await rig.signedIn(viewport);
      await page.goto(`/dashboard/orgs/${owner.orgId}/ledger`);
      await page.getByRole('heading', { name: /^Ledger of/ }).waitFor();
      const rows = page.locator('table.ledger-table tbody tr');
      await page.waitForFunction(() => document.querySelectorAll('table.ledger-table tbody tr').length === 25);
      await screenshot(page, `70-ledger-page-${device}`);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);

      // The pager above the table as well as below it, with the page number.
      const top = page.getByRole('navigation', { name: 'Ledger pages', exact: true });
      const bottom = page.getByRole('navigation', { name: 'Ledger pages, at the bottom' });
      const table = await page.locator('table.ledger-table').boundingBox();
      expect((await top.boundingBox())!.y).toBeLessThan(table!.y);
      expect((await bottom.boundingBox())!.y).toBeGreaterThan(table!.y + table!.height - 1);
      expect(await top.locator('#page-number').textContent()).toBe('Page 1 of 2');

      const heights = await rows.evaluateAll((trs) => trs.map((tr) => tr.getBoundingClientRect().height));
      const total = heights.reduce((sum, h) => sum + h, 0);
      if (device === 'desktop') {
        // One line a row (two where a name was renamed since): was 4,469 px for 25 rows.
        expect(Math.max(...heights)).toBeLessThan(80);
        expect(total).toBeLessThan(1500);
      } else {
        // A phone stacks each row's cells; the price and the request id still take a line each.
        expect(total).toBeLessThan(25 * 420);
      }

      // The request id: shortened, monospace, on one line, linking to its call under its whole id.
      const newest = requestIds.at(-1)!;
      const link = page.getByRole('link', { name: `Request ${newest}`, exact: true });
      expect(await link.getAttribute('title')).toBe(newest);
      const idBox = await link.locator('code').boundingBox();
      expect(idBox!.height).toBeLessThan(30);
      expect(await link.locator('code').evaluate((el) => getComputedStyle(el).fontFamily)).toMatch(/mono/i);

      // The price: one line until opened; opened, the API's whole explanation.
      const entries = (await call(app.url, 'GET', `/orgs/${owner.orgId}/ledger`, { token: owner.session })).body
        .entries as { price_explanation: string }[];
      const longest = entries.reduce((a, b) => (b.price_explanation.length > a.price_explanation.length ? b : a));
      const price = page.locator('details.price').filter({ hasText: longest.price_explanation }).first();
      const summary = price.locator('summary');
      expect(await summary.getAttribute('title')).toBe(longest.price_explanation);
      const closed = (await summary.boundingBox())!.height;
      expect(closed).toBeLessThan(30);
      await summary.click();
      expect(await price.getAttribute('open')).not.toBeNull();
      expect((await summary.textContent())?.trim()).toBe(longest.price_explanation);
      if (device === 'desktop') expect((await summary.boundingBox())!.height).toBeGreaterThan(closed);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `71-ledger-price-opened-${device}`);

      // Turning the page from the top pager.
      await top.getByRole('button', { name: 'Next page →' }).click();
      await page.waitForFunction(() => document.querySelectorAll('table.ledger-table tbody tr').length === 5);
      expect(await page.locator('#page-number').textContent()).toBe('Page 2 of 2');
      await top.getByRole('button', { name: '← Previous page' }).waitFor();
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }
});
