import { readFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import {
  closeBrowser,
  buildDashboard,
  hasChromium,
  horizontalOverflow,
  launchChromium,
  newPage,
  requestLink,
  screenshot,
} from './support/dashboard-browser.js';
import { Database } from '../src/database/database.js';
import { RequestLogWriter } from '../src/request-log/request-log.writer.js';
import { eventually } from './support/eventually.js';
import { StaticSite } from './support/static-site.js';
import { parseCsv } from './support/csv.js';
import { call, rename, setUpOrganization, useTestApp } from './support/test-app.js';

if (!hasChromium) console.warn('dashboard browser tests skipped: no Chromium at /usr/bin/chromium (set CHROMIUM_PATH)');
const describeBrowser = hasChromium ? describe : describe.skip;

const run = promisify(execFile);

const PAGE = (title: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>` +
  `<p>${'The Danube flows through ten countries on its way to the Black Sea. '.repeat(8)}</p></main></body></html>`;

interface LedgerEntry {
  key_environment: 'live' | 'test';
  credits: number;
  request_id: string;
  price_explanation: string;
}

/** The ledger's row of a call: its request id is shown shortened, as a link named for the whole id. */
const rowOf = (page: Page, requestId: string) =>
  page.locator('tr', { has: page.getByRole('link', { name: `Request ${requestId}`, exact: true }) });

/**
 * A mixed workload (two live keys in two projects, one test key; searches, answers, an extraction), then every figure
 * the Usage and Ledger screens show, checked against GET /usage (the key's own view) and the ledger's sum.
 */
describeBrowser('the dashboard’s figures agree with GET /usage and the ledger', () => {
  let site: StaticSite;
  let browser: Browser;
  let owner: Awaited<ReturnType<typeof setUpOrganization>>;
  let liveKey: string;
  let answerRequestId: string;
  let beforeRenameRequestId: string;
  let extractRequestId: string;
  let refusedRequestId: string;
  let ledger: LedgerEntry[];
  let expected: { liveCredits: number; testCredits: number; liveRequests: number; testRequests: number };

  beforeAll(async () => {
    buildDashboard();
    site = await new StaticSite('test/fixtures', { '/one.html': PAGE('One'), '/two.html': PAGE('Two') }).start();
  }, 120_000);
  // Before the app's teardown: the browser closes while the app still answers its pages.
  afterAll(async () => {
    await closeBrowser(browser);
  });
  const app = useTestApp(() => ({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1' } }), 120_000);
  beforeAll(async () => {
    browser = await launchChromium();
    owner = await setUpOrganization(app, app.smtp, 'figures@dash.test');
    const batch = await call(app.url, 'POST', `/orgs/${owner.orgId}/projects`, {
      token: owner.session,
      body: { name: 'Batch' },
    });
    const key = async (name: string, projectId: string, environment: 'live' | 'test') => {
      const created = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, {
        token: owner.session,
        body: { name, project_id: projectId, environment },
      });
      expect(created.status).toBe(201);
      return { secret: created.body.key as string, id: created.body.id as string };
    };
    const web = await key('Web', owner.projectId, 'live');
    liveKey = web.secret;
    const batchKey = (await key('Batch jobs', batch.body.id as string, 'live')).secret;
    const testKey = (await key('CI', owner.projectId, 'test')).secret;
    const basicOnly = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, {
      token: owner.session,
      body: { name: 'Basic only', project_id: owner.projectId, depth_limit: 'basic' },
    });

    const ok = async (path: string, token: string, body: Record<string, unknown>) => {
      const response = await call(app.url, 'POST', path, { token, body });
      expect(`${response.status} ${path}`).toBe(`200 ${path}`);
      return response.body as { request_id: string };
    };
    // The extraction writes its pages to the index, so the Danube answer search finds them and answers; the test
    // key's answer search finds nothing, gets no answer, and pays no surcharge.
    extractRequestId = (
      await ok('/extract', batchKey, { urls: [`${site.origin}/one.html`, `${site.origin}/two.html`] })
    ).request_id;
    // Its pages reach the index in the background: searched before, the answer search would find nothing.
    const db = app.app.get(Database);
    await eventually(
      'the extracted pages are in the index',
      async () =>
        (
          await db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents WHERE url LIKE $1', [
            `${site.origin}/%`,
          ])
        ).rows[0]!.n,
      (n) => n >= 2,
    );
    // Renamed between charges: the charges before keep the names they were charged under.
    await rename(app, owner, `projects/${batch.body.id as string}`, 'Batch nightly');
    for (let i = 0; i < 5; i++)
      beforeRenameRequestId = (await ok('/search', liveKey, { query: `danube ${i}` })).request_id;
    await rename(app, owner, `api-keys/${web.id}`, 'Web app');
    answerRequestId = (await ok('/search', liveKey, { query: 'danube countries', include_answer: true })).request_id;
    for (let i = 0; i < 2; i++) await ok('/search', batchKey, { query: `rhine ${i}`, search_depth: 'advanced' });
    for (let i = 0; i < 2; i++) await ok('/search', testKey, { query: `test ${i}` });
    await ok('/search', testKey, { query: 'test answer', include_answer: true });
    const refused = await call(app.url, 'POST', '/search', {
      token: basicOnly.body.key as string,
      body: { query: 'too deep', search_depth: 'advanced' },
    });
    expect(refused.status).toBe(403);
    refusedRequestId = refused.body.request_id ?? refused.headers.get('x-request-id');
    // live: 0 (2 URLs, 1 credit per 5) + 5 × 1 + (1 + 1) + 2 × 2 = 11 credits in 9 requests; test: 2 + 1 in 3.
    expected = { liveCredits: 11, testCredits: 3, liveRequests: 9, testRequests: 3 };

    // The ledger is a projection: wait until it holds every charge.
    for (const deadline = Date.now() + 15_000; ;) {
      const page = await call(app.url, 'GET', `/orgs/${owner.orgId}/ledger?limit=500`, { token: owner.session });
      ledger = page.body.entries as LedgerEntry[];
      if (ledger.length === 12) break;
      if (Date.now() > deadline) throw new Error(`the ledger shows ${ledger.length} charges, not 12`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 120_000);

  afterAll(async () => {
    await site?.stop();
  });

  const ledgerSum = (environment: 'live' | 'test') =>
    ledger.filter((e) => e.key_environment === environment).reduce((sum, e) => sum + e.credits, 0);
  const ledgerCount = (environment: 'live' | 'test') => ledger.filter((e) => e.key_environment === environment).length;

  test('the sources agree with each other first: GET /usage, the organization’s usage and the ledger', async () => {
    const keyView = await call(app.url, 'GET', '/usage', { token: liveKey });
    expect(keyView.status).toBe(200);
    expect(keyView.body.account.plan_usage).toBe(expected.liveCredits);
    expect(ledgerSum('live')).toBe(expected.liveCredits);
    expect(ledgerSum('test')).toBe(expected.testCredits);
    expect(ledgerCount('live')).toBe(expected.liveRequests);
    expect(ledgerCount('test')).toBe(expected.testRequests);
    const report = await call(app.url, 'GET', `/orgs/${owner.orgId}/usage`, { token: owner.session });
    expect(report.body).toMatchObject({
      credits_used: expected.liveCredits,
      test_credits_used: expected.testCredits,
      live_requests: expected.liveRequests,
      test_requests: expected.testRequests,
    });
    for (const breakdown of ['by_project', 'by_key', 'by_operation', 'by_day'] as const) {
      const rows = report.body[breakdown] as { environment: string; credits: number; requests: number }[];
      const sum = (environment: string, figure: 'credits' | 'requests') =>
        rows.filter((r) => r.environment === environment).reduce((total, r) => total + r[figure], 0);
      expect({ breakdown, live: sum('live', 'credits'), test: sum('test', 'credits') }).toEqual({
        breakdown,
        live: expected.liveCredits,
        test: expected.testCredits,
      });
      expect(sum('live', 'requests') + sum('test', 'requests')).toBe(report.body.requests);
    }
  });

  for (const [device, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 360, height: 740 }],
  ] as const) {
    test(`Usage (${device}): the headline, every breakdown's totals and the charts' tables are the same figures`, async () => {
      const { context, page, errors } = await newPage(browser, app, viewport);
      await context.addCookies([{ name: 'session', value: owner.session, url: app.url }]);
      await page.goto(`/dashboard/orgs/${owner.orgId}/usage`);
      await page.getByRole('heading', { name: /^Usage of/ }).waitFor();
      const number = async (selector: string) =>
        Number((await page.locator(selector).textContent())!.replace(/,/g, ''));
      expect(await number('#credits-used')).toBe(expected.liveCredits);
      expect(await number('#test-credits')).toBe(expected.testCredits);
      expect(await number('#live-requests')).toBe(expected.liveRequests);
      expect(await number('#test-requests')).toBe(expected.testRequests);
      await page.getByText(`${expected.liveCredits} of 1,000 live credits used`).first().waitFor();
      for (const breakdown of ['#by-project', '#by-key', '#by-operation', '.chart[data-environment="live"]']) {
        const total = (name: string) => number(`${breakdown} [data-total="${name}"]`);
        expect({ breakdown, credits: await total('live-credits'), requests: await total('live-requests') }).toEqual({
          breakdown,
          credits: expected.liveCredits,
          requests: expected.liveRequests,
        });
      }
      for (const breakdown of ['#by-project', '#by-key', '#by-operation', '.chart[data-environment="test"]']) {
        expect(await number(`${breakdown} [data-total="test-credits"]`)).toBe(expected.testCredits);
      }
      expect(await page.locator('#by-project tbody tr').count()).toBe(2);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `30-figures-usage-${device}`);

      // A month without usage says which month.
      await page.goto(`/dashboard/orgs/${owner.orgId}/usage?month=2026-10`);
      await page.getByText('No usage in October 2026.').first().waitFor();
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);

    test(`Ledger (${device}): newest first, the filter's totals, each price explained, page numbers`, async () => {
      const { context, page, errors } = await newPage(browser, app, viewport);
      await context.addCookies([{ name: 'session', value: owner.session, url: app.url }]);
      await page.goto(`/dashboard/orgs/${owner.orgId}/ledger`);
      await page.getByRole('heading', { name: /^Ledger of/ }).waitFor();
      const totals = page.locator('#ledger-totals');
      expect(await totals.locator('[data-total="live-credits"]').textContent()).toBe(`${ledgerSum('live')} credits`);
      expect(await totals.locator('[data-total="test-credits"]').textContent()).toBe(`${ledgerSum('test')} credits`);
      const month = new Date().toISOString().slice(0, 7);
      const monthName = new Date().toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
      expect(await totals.textContent()).toContain(`${ledger.length} charges match in ${monthName}`);
      expect(await page.getByLabel('Month', { exact: true }).inputValue()).toBe(month);
      expect(await page.getByLabel('Every month').isChecked()).toBe(false);
      expect(await page.locator('#page-number').textContent()).toBe('Page 1 of 1');
      // Names as charged, today's beside them where they differ.
      const extractRow = rowOf(page, extractRequestId);
      expect(await extractRow.locator('td').nth(4).textContent()).toBe('Batchnow: Batch nightly');
      expect(await extractRow.locator('td').nth(5).textContent()).not.toContain('now:');
      const beforeRename = rowOf(page, beforeRenameRequestId);
      expect(await beforeRename.locator('td').nth(5).locator('.renamed').textContent()).toBe('now: Web app');
      expect(await beforeRename.locator('td').nth(5).textContent()).toMatch(/^Web sk_live_[^…]+…now: Web app$/);
      expect(await beforeRename.locator('td').nth(4).textContent()).toBe('Main');
      const afterRename = rowOf(page, answerRequestId);
      expect(await afterRename.locator('td').nth(5).textContent()).toMatch(/^Web app sk_live_[^…]+…$/);
      // Newest first: the test key's answer search was the last call.
      const firstRow = page.locator('table.responsive tbody tr').first();
      expect(await firstRow.textContent()).toContain(
        'basic search: 1 credit + answer surcharge (basic): 0 credits (no answer returned) = 1 credit',
      );
      expect(await firstRow.textContent()).toContain('test');
      expect(await rowOf(page, answerRequestId).textContent()).toContain(
        'basic search: 1 credit + answer surcharge (basic): 1 credit = 2 credits',
      );
      expect(await rowOf(page, extractRequestId).textContent()).toContain(
        '2 successful URLs (1 credit per 5, counted over the month), no block of 5 completed by this call: 0 credits',
      );
      expect(await page.locator('time.precise-time').first().textContent()).toMatch(
        /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} UTC$/,
      );
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `31-figures-ledger-${device}`);

      // Live only, oldest first.
      await page.getByLabel('Environment').selectOption('live');
      await page.getByLabel('Order').selectOption('asc');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/environment=live/);
      await page.locator('#ledger-totals', { hasText: `${ledgerCount('live')} charges match` }).waitFor();
      expect(await page.locator('#ledger-totals [data-total="test-credits"]').textContent()).toBe('0 credits');
      // The oldest live charge is the extraction of the two pages.
      expect(await page.locator('table.responsive tbody tr').first().textContent()).toContain(
        'basic extraction: 2 successful URLs',
      );

      // Every month: the same charges (all of them are this month's); a past month has none.
      await page.getByLabel('Every month').check();
      expect(await page.getByLabel('Month', { exact: true }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/month=all/);
      await page
        .locator('#ledger-totals', { hasText: `${ledgerCount('live')} charges match in every month` })
        .waitFor();
      await page.goto(`/dashboard/orgs/${owner.orgId}/ledger?month=2020-01`);
      await page.getByText('No charges in January 2020.').waitFor();
      expect(await page.locator('#ledger-totals').textContent()).toContain('0 charges match in January 2020');
      // Nothing to page through or export.
      expect(await page.locator('#page-number').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Export audit CSV' }).isDisabled()).toBe(true);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }

  for (const [device, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 360, height: 740 }],
  ] as const) {
    test(`Requests (${device}): every call, the refused one too, with status, key, query, latency, credits`, async () => {
      await app.app.get(RequestLogWriter).flush();
      const { context, page, errors } = await newPage(browser, app, viewport);
      await context.addCookies([{ name: 'session', value: owner.session, url: app.url }]);
      await page.goto(`/dashboard/orgs/${owner.orgId}/requests`);
      await page.getByRole('heading', { name: /^Requests of/ }).waitFor();
      const rows = page.locator('table.responsive tbody tr');
      // The screen shows what the API route holds: the 12 charged calls, the refused one (and any GET /usage).
      const all = await call(app.url, 'GET', `/orgs/${owner.orgId}/requests`, { token: owner.session });
      const logged = (all.body.requests as { request_id: string }[]).map((r) => r.request_id);
      expect(logged).toEqual(expect.arrayContaining([...ledger.map((e) => e.request_id), refusedRequestId]));
      expect(await rows.count()).toBe(logged.length);
      const refusedRow = rows.filter({ hasText: 'too deep' });
      expect(await refusedRow.textContent()).toContain('403');
      expect(await refusedRow.textContent()).toContain('Basic only');
      const answerCells = await rows.filter({ hasText: 'danube countries' }).locator('td').allTextContents();
      expect(answerCells.at(-2)).toMatch(/^\d+ ms$/);
      expect(answerCells.at(-1)).toBe('2');
      await screenshot(page, `32-requests-${device}`);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);

      await page.getByLabel('Status').selectOption('4xx');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/status=4xx/);
      await rows.first().filter({ hasText: 'too deep' }).waitFor();
      expect(await rows.count()).toBe(1);
      const api = await call(app.url, 'GET', `/orgs/${owner.orgId}/requests?status=4xx`, { token: owner.session });
      expect(api.body.requests.map((r: { request_id: string }) => r.request_id)).toEqual([refusedRequestId]);
      // The refusal says why, as its answer did.
      expect(await rows.first().locator('.refusal').textContent()).toMatch(/basic depth/);

      // A project and a range of UTC days: every call was today, in the one project.
      const today = new Date().toISOString().slice(0, 10);
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.getByLabel('Project').selectOption(owner.projectId);
      await page.getByLabel('From (UTC day)').fill(today);
      await page.getByLabel('To (UTC day)').fill(today);
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(new RegExp(`project_id=${owner.projectId}.*start_date=${today}&end_date=${today}`));
      const inProject = await call(
        app.url,
        'GET',
        `/orgs/${owner.orgId}/requests?project_id=${owner.projectId}&start_date=${today}&end_date=${today}`,
        { token: owner.session },
      );
      expect(inProject.body.requests.length).toBeGreaterThan(0);
      await page.waitForFunction(
        (count) => document.querySelectorAll('table.responsive tbody tr').length === count,
        inProject.body.requests.length,
      );
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      await page.getByLabel('From (UTC day)').fill(tomorrow);
      await page.getByLabel('To (UTC day)').fill(tomorrow);
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByText('No requests match these filters.').waitFor();

      // The CSV holds what the screen shows.
      await page.goto(`/dashboard/orgs/${owner.orgId}/requests?status=4xx`);
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export CSV' }).click();
      const csv = await readFile((await (await download).path())!, 'utf8');
      expect(csv.trimEnd().split('\r\n')).toHaveLength(2);
      expect(csv).toContain(refusedRequestId);

      // One call: from its row to its detail, to its charges in the ledger, and back.
      await page.goto(`/dashboard/orgs/${owner.orgId}/requests`);
      await page.getByRole('link', { name: `Request ${answerRequestId}` }).click();
      await page.getByRole('heading', { name: /^Request / }).waitFor();
      expect(await page.locator('#request-facts').textContent()).toContain('danube countries');
      expect(await page.locator('#request-charged').textContent()).toMatch(/^2 credits in all/);
      await screenshot(page, `33-request-${device}`);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.getByRole('link', { name: 'See these charges in the ledger' }).click();
      await page.waitForURL(/ledger\?month=all&request_id=/);
      await page.locator('#ledger-request').waitFor();
      const ledgerRows = page.locator('table.responsive tbody tr');
      await ledgerRows.first().waitFor();
      expect(await ledgerRows.count()).toBe(1);
      expect(await page.locator('#ledger-totals').textContent()).toContain('1 charge match');
      await page
        .getByRole('link', { name: `Request ${answerRequestId}` })
        .first()
        .click();
      await page.getByRole('heading', { name: /^Request / }).waitFor();
      expect(page.url()).toContain(`/requests/${answerRequestId}`);
      expect(errors).toEqual([]);
      await context.close();
    }, 90_000);
  }

  for (const [device, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 360, height: 740 }],
  ] as const) {
    test(`Quickstart (${device}): after a key is created, runnable snippets with that key and this server`, async () => {
      const { context, page, errors } = await newPage(browser, app, viewport);
      await context.addCookies([{ name: 'session', value: owner.session, url: app.url }]);
      await page.goto(`/dashboard/orgs/${owner.orgId}/keys`);
      await page.getByLabel('Key name').fill(`Quickstart ${device}`);
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = await page.getByLabel('API key', { exact: true }).inputValue();
      await page.getByRole('heading', { name: 'Quickstart', exact: true }).waitFor();
      const snippet = async (id: string) => (await page.locator(`[data-snippet="${id}"] code`).textContent())!;
      for (const id of ['curl', 'js', 'python', 'mcp']) {
        const text = await snippet(id);
        expect(text).toContain(key);
        expect(text).toContain(app.url);
      }
      expect(JSON.parse(await snippet('mcp'))).toEqual({
        mcpServers: { search: { url: `${app.url}/mcp`, headers: { Authorization: `Bearer ${key}` } } },
      });
      expect(await page.getByRole('link', { name: /API reference/ }).getAttribute('href')).toBe('/docs');
      // The curl snippet, run as shown, answers a search.
      // (Asynchronously: the server runs in this process.)
      const { stdout } = await run('sh', ['-c', await snippet('curl')], { encoding: 'utf8', timeout: 20_000 });
      expect(JSON.parse(stdout)).toMatchObject({ query: 'how long is the danube', results: expect.any(Array) });
      expect(await page.locator('input.secret').evaluate((el) => getComputedStyle(el).fontFamily)).toMatch(/mono/i);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `33-quickstart-${device}`);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }

  for (const [device, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 360, height: 740 }],
  ] as const) {
    test(`Members and plan (${device}): the plan's limits as the API has them; add a member`, async () => {
      const { context, page, errors } = await newPage(browser, app, viewport);
      await context.addCookies([{ name: 'session', value: owner.session, url: app.url }]);
      await page.goto(`/dashboard/orgs/${owner.orgId}/members`);
      await page.getByRole('heading', { name: /^Members and plan of/ }).waitFor();
      const org = (await call(app.url, 'GET', `/orgs/${owner.orgId}`, { token: owner.session })).body;
      const plan = await page.locator('#plan dd').allTextContents();
      expect(plan).toEqual([
        org.plan,
        org.monthly_credit_allowance.toLocaleString('en-US'),
        `${org.rate_limit_per_minute.live} requests/min`,
        `${org.rate_limit_per_minute.test} requests/min`,
      ]);
      const email = `${device}@members.test`;
      await page.getByLabel('E-mail address').fill('not an address');
      await page.getByRole('button', { name: 'Add member' }).click();
      await expect(page.getByLabel('E-mail address').getAttribute('aria-invalid')).resolves.toBe('true');
      await page.getByLabel('E-mail address').fill(email);
      await page.getByLabel('Role', { exact: true }).selectOption('admin');
      await page.getByRole('button', { name: 'Add member' }).click();
      await page.getByRole('row', { name: email }).waitFor();
      const members = await call(app.url, 'GET', `/orgs/${owner.orgId}/members`, { token: owner.session });
      expect(members.body.members).toEqual(expect.arrayContaining([expect.objectContaining({ email, role: 'admin' })]));
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `38-members-${device}`);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }

  test('Projects and keys: each project’s keys and credits as GET /orgs/{org_id}/usage has them; scopes and depth', async () => {
    const { context, page, errors } = await newPage(browser, app, { width: 360, height: 740 });
    await context.addCookies([{ name: 'session', value: owner.session, url: app.url }]);
    await page.goto(`/dashboard/orgs/${owner.orgId}/projects`);
    await page.getByRole('heading', { name: /^Projects of/ }).waitFor();
    const report = (await call(app.url, 'GET', `/orgs/${owner.orgId}/usage`, { token: owner.session })).body as {
      by_project: { name: string; environment: string; credits: number }[];
    };
    const keyList = (await call(app.url, 'GET', `/orgs/${owner.orgId}/api-keys`, { token: owner.session })).body
      .keys as { project_id: string; status: string }[];
    const projectList = (await call(app.url, 'GET', `/orgs/${owner.orgId}/projects`, { token: owner.session })).body
      .projects as { id: string; name: string }[];
    const shown = await page.locator('table.responsive tbody tr').evaluateAll((rows) =>
      rows.map((row) =>
        // The name cell holds the name and (for owners) a Rename button: the name alone.
        [...row.querySelectorAll('td')].map((td) => (td.querySelector('.key-name') ?? td).textContent ?? ''),
      ),
    );
    expect(shown).toHaveLength(projectList.length);
    for (const project of projectList) {
      const cells = shown.find((row) => row[0] === project.name) ?? [];
      const credits = (environment: string) =>
        String(report.by_project.find((p) => p.name === project.name && p.environment === environment)?.credits ?? 0);
      const active = keyList.filter((k) => k.project_id === project.id && k.status === 'active').length;
      expect(cells.slice(0, 4)).toEqual([project.name, String(active), credits('live'), credits('test')]);
    }
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, '39-projects-phone');
    await page.getByRole('link', { name: 'Ledger of Main' }).click();
    await page.waitForURL(/project_id=/);
    await page.getByRole('heading', { name: /^Ledger of/ }).waitFor();

    await page.goto(`/dashboard/orgs/${owner.orgId}/keys`);
    const basic = page.getByRole('row', { name: /Basic only/ });
    expect(await basic.textContent()).toContain('basic depth only');
    expect(await basic.textContent()).toContain('search, verticals');
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  test('rough edges: deep link after sign-in, loading and retry, inline form errors, long names, no heading ring', async () => {
    const { context, page, errors } = await newPage(browser, app);
    // A deep link opened while signed out lands there after sign-in (the link opened in the same browser).
    await page.goto(`/dashboard/orgs/${owner.orgId}/ledger?order=asc`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByText('Sign in to continue.').waitFor();
    const token = await requestLink(page, app.smtp, 'figures@dash.test');
    await page.goto(`/dashboard/sign-in?token=${token}`);
    await page.getByRole('heading', { name: /^Ledger of/ }).waitFor();
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(
      `/dashboard/orgs/${owner.orgId}/ledger?order=asc`,
    );
    // The heading takes the focus for screen readers, without a ring.
    expect(await page.evaluate<string>("getComputedStyle(document.querySelector('h1')).outlineStyle")).toBe('none');

    // While a page's data loads it says so; when the server cannot be reached, the error offers a retry.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/orgs/*/usage?*', async (route) => {
      await held;
      await route.abort('connectionfailed');
    });
    await page.getByRole('link', { name: 'Usage', exact: true }).click();
    await page.getByText('Loading…').waitFor();
    await screenshot(page, '34-loading');
    release();
    await page.getByRole('heading', { name: 'Something went wrong' }).waitFor();
    await screenshot(page, '35-error-retry');
    await page.unroute('**/orgs/*/usage?*');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('heading', { name: /^Usage of/ }).waitFor();

    // Form errors are inline, never a browser bubble; a long key name does not widen the page.
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    const nameInput = page.getByLabel('Key name');
    await expect(nameInput.getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await page.locator('.field-error').first().textContent()).not.toBe('');
    await screenshot(page, '36-inline-form-error');
    await nameInput.fill('x'.repeat(100));
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('API key', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'I have stored it: hide the key' }).click();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    const revoke = page.getByRole('button', { name: `Revoke ${'x'.repeat(100)}` });
    expect(await revoke.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgba(0, 0, 0, 0)');
    await screenshot(page, '37-long-key-name');
    expect(errors.filter((e) => !e.includes('ERR_CONNECTION_FAILED') && !e.includes('Failed to fetch'))).toEqual([]);
    await context.close();
  }, 90_000);

  test('the finance CSV downloads beside the audit one, with readable columns', async () => {
    const { context, page } = await newPage(browser, app);
    await context.addCookies([{ name: 'session', value: owner.session, url: app.url }]);
    await page.goto(`/dashboard/orgs/${owner.orgId}/ledger`);
    await page.getByRole('heading', { name: /^Ledger of/ }).waitFor();
    const save = async (button: string) => {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: button }).click(),
      ]);
      const stream = await download.createReadStream();
      let text = '';
      for await (const chunk of stream) text += String(chunk);
      return { name: download.suggestedFilename(), text };
    };
    const finance = await save('Export CSV for finance');
    expect(finance.name).toMatch(/^ledger-finance-/);
    expect(finance.text.split('\r\n')[0]).toBe(
      'Record,Time (UTC),Billing month,Project,Project now,Key,Key now,Key prefix,Environment,Billable,Operation,' +
        'Depth,Via,Credits,Price,Request id,Charge id,Idempotency key,Paid by allowance,Paid by grants,Paid as overage',
    );
    const [header, ...records] = parseCsv(finance.text);
    const cell = (record: string[], name: string) => record[header!.indexOf(name)];
    const extract = records.find((record) => cell(record, 'Request id') === extractRequestId)!;
    expect([cell(extract, 'Project'), cell(extract, 'Project now'), cell(extract, 'Billable')]).toEqual([
      'Batch',
      'Batch nightly',
      'yes',
    ]);
    const totals = records.filter((record) => cell(record, 'Record') === 'total');
    expect(totals.map((record) => [cell(record, 'Environment'), cell(record, 'Billable')])).toEqual([
      ['live', 'yes'],
      ['test', 'no'],
    ]);
    expect(finance.text).not.toContain('commit_position');
    const audit = await save('Export audit CSV');
    expect(audit.text.split('\r\n')[0]).toMatch(/^commit_position,prepare_position,/);
    // Every charge so far (the quickstart tests' curl calls included), after the header.
    const charged = await call(app.url, 'GET', `/orgs/${owner.orgId}/ledger?limit=500`, { token: owner.session });
    expect(audit.text.trim().split('\r\n')).toHaveLength(charged.body.entries.length + 1);
    // The charges, then one total per environment.
    expect(finance.text.trim().split('\r\n')).toHaveLength(charged.body.entries.length + 3);
    const sum = (environment: string) =>
      (charged.body.entries as LedgerEntry[])
        .filter((e) => e.key_environment === environment)
        .reduce((total, e) => total + e.credits, 0);
    expect(totals.map((record) => Number(cell(record, 'Credits')))).toEqual([sum('live'), sum('test')]);
    await context.close();
  }, 60_000);
});
