import type { Browser } from 'playwright-core';
import {
  closeBrowser,
  buildDashboard,
  hasChromium,
  launchChromium,
  newPage,
  screenshot,
  signInInBrowser,
} from './support/dashboard-browser.js';
import { call, setUpOrganization, useTestApp } from './support/test-app.js';

if (!hasChromium) console.warn('dashboard isolation browser tests skipped: no Chromium at /usr/bin/chromium');
const describeBrowser = hasChromium ? describe : describe.skip;

describeBrowser("the dashboard never shows or changes another organization's keys or usage", () => {
  let browser: Browser;
  let alice: Awaited<ReturnType<typeof setUpOrganization>>;
  let aliceKey: { id: string; key: string; prefix: string };

  beforeAll(async () => {
    buildDashboard();
  }, 120_000);
  // Before the app's teardown: the browser closes while the app still answers its pages.
  afterAll(async () => {
    await closeBrowser(browser);
  });
  const app = useTestApp({}, 120_000);
  beforeAll(async () => {
    browser = await launchChromium();
    alice = await setUpOrganization(app, app.smtp, 'alice@a.test');
    const created = await call(app.url, 'POST', `/orgs/${alice.orgId}/api-keys`, {
      token: alice.session,
      body: { name: 'Alice secret project key', project_id: alice.projectId },
    });
    aliceKey = { id: created.body.id, key: created.body.key, prefix: created.body.prefix };
    expect((await call(app.url, 'POST', '/search', { token: aliceKey.key, body: { query: 'x' } })).status).toBe(200);
  }, 120_000);

  test("Bob, signed in to his own organization, gets 'not found' for Alice's, in the UI and from every route it calls", async () => {
    const { context, page, errors } = await newPage(browser, app);
    await signInInBrowser(page, app.smtp, 'bob@b.test');
    await page.getByLabel('Organization name').fill('Bob Ltd');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();

    // The organization switcher lists only Bob's.
    const options = await page.getByLabel('Organization').locator('option').allTextContents();
    expect(options).toContain('Bob Ltd');
    expect(options.join()).not.toContain('alice');

    // Typing Alice's organization into the address bar: a plain "not found", nothing of hers.
    for (const tab of ['keys', 'usage', 'ledger', 'projects']) {
      await page.goto(`/dashboard/orgs/${alice.orgId}/${tab}`);
      await page.getByRole('heading', { name: 'Not found' }).waitFor();
      const html = await page.content();
      expect(html).not.toContain('Alice secret project key');
      expect(html).not.toContain(aliceKey.prefix);
      expect(html).not.toContain('alice@a.test org');
      if (tab === 'keys') await screenshot(page, '30-isolation-other-org');
    }

    // The routes the dashboard calls, with Bob's session cookie: 404 for reading and changing alike.
    const answers = await page.evaluate(
      async ({ org, key }) => {
        const json = { 'content-type': 'application/json' };
        const requests: [string, string, RequestInit][] = [
          ['org', `/orgs/${org}`, {}],
          ['keys', `/orgs/${org}/api-keys`, {}],
          ['projects', `/orgs/${org}/projects`, {}],
          ['usage', `/orgs/${org}/usage`, {}],
          ['ledger', `/orgs/${org}/ledger`, {}],
          ['ledger csv', `/orgs/${org}/ledger`, { headers: { accept: 'text/csv' } }],
          ['create key', `/orgs/${org}/api-keys`, { method: 'POST', headers: json, body: '{"name":"bob was here"}' }],
          ['rename', `/orgs/${org}/api-keys/${key}`, { method: 'PATCH', headers: json, body: '{"name":"pwned"}' }],
          ['revoke', `/orgs/${org}/api-keys/${key}`, { method: 'DELETE' }],
          ['create project', `/orgs/${org}/projects`, { method: 'POST', headers: json, body: '{"name":"x"}' }],
        ];
        const out: Record<string, { status: number; body: string }> = {};
        for (const [name, url, init] of requests) {
          const response = await fetch(url, { credentials: 'same-origin', ...init });
          out[name] = { status: response.status, body: await response.text() };
        }
        return out;
      },
      { org: alice.orgId, key: aliceKey.id },
    );
    for (const [name, answer] of Object.entries(answers)) {
      expect({ name, status: answer.status }).toEqual({ name, status: 404 });
      expect(answer.body).not.toContain(aliceKey.prefix);
    }

    // Alice's key is untouched and still works; her usage still counts only her call.
    const keys = await call(app.url, 'GET', `/orgs/${alice.orgId}/api-keys`, { token: alice.session });
    expect(keys.body.keys).toEqual([
      expect.objectContaining({ id: aliceKey.id, name: 'Alice secret project key', status: 'active' }),
    ]);
    expect((await call(app.url, 'POST', '/search', { token: aliceKey.key, body: { query: 'y' } })).status).toBe(200);

    // Bob's own usage page shows none of Alice's usage.
    const bobOrg = /\/orgs\/([^/]+)\//.exec(
      await page.evaluate(async () => {
        const r = await fetch('/orgs');
        const body = (await r.json()) as { organizations: { id: string }[] };
        return `/orgs/${body.organizations[0]!.id}/`;
      }),
    )![1]!;
    expect(bobOrg).not.toBe(alice.orgId);
    await page.goto(`/dashboard/orgs/${bobOrg}/usage`);
    await page.getByRole('heading', { name: 'Usage of Bob Ltd' }).waitFor();
    expect(await page.locator('#credits-used').textContent()).toBe('0');
    expect(await page.content()).not.toContain(aliceKey.prefix);
    await page.goto(`/dashboard/orgs/${bobOrg}/ledger`);
    await page.getByText(/^No charges in \w+ \d{4}\.$/).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  test('without a session, the routes answer 401 and the dashboard asks to sign in', async () => {
    const { context, page } = await newPage(browser, app);
    await page.goto(`/dashboard/orgs/${alice.orgId}/keys`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.content()).not.toContain(aliceKey.prefix);
    expect((await call(app.url, 'GET', `/orgs/${alice.orgId}/api-keys`)).status).toBe(401);
    await context.close();
  }, 60_000);
});
