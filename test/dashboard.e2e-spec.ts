import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { TEST_DATABASE_URL } from './support/test-database.js';
import { Database } from '../src/database/database.js';
import {
  closeBrowser,
  buildDashboard,
  hasChromium,
  horizontalOverflow,
  launchChromium,
  newPage,
  requestLink,
  screenshot,
  signInInBrowser,
} from './support/dashboard-browser.js';
import { call, useTestApp } from './support/test-app.js';

if (!hasChromium) console.warn('dashboard browser tests skipped: no Chromium at /usr/bin/chromium (set CHROMIUM_PATH)');
const describeBrowser = hasChromium ? describe : describe.skip;

describeBrowser('the dashboard, in headless Chromium', () => {
  let browser: Browser;

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
  }, 120_000);

  const search = (key: string) => call(app.url, 'POST', '/search', { token: key, body: { query: 'danube' } });

  test('serves the page shell with a strict Content-Security-Policy and no inline script', async () => {
    const response = await fetch(`${app.url}/dashboard`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=/);
    expect((await fetch(`${app.url}/dashboard/assets/app.js`)).headers.get('content-type')).toContain('javascript');
    expect((await fetch(`${app.url}/dashboard/assets/..%2Fpackage.json`)).status).toBe(404);
  });

  test('the whole path: sign in, organization, project, live key, copy, search, usage, ledger, rename, revoke, 401', async () => {
    const { context, page, errors } = await newPage(browser, app);
    await page.goto('/dashboard');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await screenshot(page, '01-sign-in');

    const token = await requestLink(page, app.smtp, 'owner@dash.test');
    await screenshot(page, '02-check-your-mail');
    await page.goto(`/dashboard/sign-in?token=${token}`);
    await page.getByRole('heading', { name: 'Organizations' }).waitFor();
    expect(page.url()).not.toContain('token=');
    await page.getByText('owner@dash.test', { exact: true }).waitFor();
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(await page.evaluate<string>('document.cookie')).not.toContain('sess_');
    await screenshot(page, '03-organizations-empty');

    // An organization (there is none yet): it comes with a project, so its keys page offers a first key at once.
    await page.getByLabel('Organization name').fill('Acme Search');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByText('Organization “Acme Search” created, with a first project').waitFor();
    await page.getByRole('heading', { name: 'Your first key' }).waitFor();
    await screenshot(page, '03b-first-key-offered');
    // Another project, which the key below goes in.
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    await page.getByRole('heading', { name: 'Projects of Acme Search' }).waitFor();
    await page.getByRole('row', { name: /Default/ }).waitFor();
    await page.getByLabel('Project name').fill('Backend');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByText('Project “Backend” created').waitFor();

    // A live key; its plaintext is shown once, with a copy button.
    await page.getByLabel('Key name').fill('Production');
    await expect(page.getByLabel('Live (uses the monthly credits)').isChecked()).resolves.toBe(true);
    await page.getByLabel('crawl').uncheck();
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.getByLabel('API key', { exact: true });
    await secret.waitFor();
    const key = await secret.inputValue();
    expect(key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    await page.getByText('This is the only time the full key is shown').waitFor();
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(copied).toBe(key);
    await screenshot(page, '04-key-created-once');

    // The key works over HTTP at once.
    const first = await search(copied);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-credits-used')).toBe('1');

    // Once hidden (or after any reload), the full key is nowhere on the page again.
    await page.getByRole('button', { name: 'I have stored it: hide the key' }).click();
    await page.reload();
    await page.getByRole('heading', { name: 'Keys', exact: true }).waitFor();
    const row = page.getByRole('row', { name: /Production/ });
    await row.waitFor();
    expect(await row.textContent()).toContain(key.slice(0, 14));
    expect(await page.content()).not.toContain(key);
    await screenshot(page, '05-keys-list');

    // Usage: the gauge and the totals show the credit, once the projection has it.
    const orgId = /\/orgs\/([^/]+)\//.exec(page.url())![1]!;
    await page.getByRole('link', { name: 'Usage', exact: true }).click();
    await waitForText(page, '#credits-used', '1');
    await page.getByText('1 of 1,000 live credits used').first().waitFor();
    expect(await page.getByRole('img', { name: /1 of 1,000 live credits used/ }).count()).toBe(1);
    await page.getByRole('row', { name: /Backend/ }).waitFor();
    expect(await page.getByText('100/min live · 20/min test').count()).toBe(1);
    await screenshot(page, '06-usage');

    // The ledger entry, its filters and the CSV export.
    await page.getByRole('link', { name: 'Ledger', exact: true }).click();
    await page.getByRole('heading', { name: 'Ledger of Acme Search' }).waitFor();
    // The row's request id is shown shortened, as a link named for the whole id (to the call's page).
    const entry = page
      .getByRole('row', { name: /search/ })
      .filter({ has: page.getByRole('link', { name: `Request ${first.body.request_id as string}`, exact: true }) });
    await entry.waitFor();
    await page.getByLabel('Operation').selectOption('extract');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText(/^No charges in \w+ \d{4} match these filters\.$/).waitFor();
    expect(page.url()).toContain('operation=extract');
    await page.getByLabel('Operation').selectOption('search');
    await page.getByLabel('Key', { exact: true }).selectOption({ label: `Production (${key.slice(0, 14)}…)` });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await entry.waitFor();
    await screenshot(page, '07-ledger');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export audit CSV' }).click(),
    ]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(download.suggestedFilename()).toMatch(/^ledger-.*\.csv$/);
    expect(csv.split('\n')[0]).toContain('charge_id');
    expect(csv).toContain(first.body.request_id as string);

    // Rename in place.
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('button', { name: 'Rename Production' }).click();
    const newName = page.getByLabel('New name');
    await newName.fill('Production (old)');
    await newName.press('Enter');
    await page.getByText('Key renamed to “Production (old)”.').waitFor();
    await page.getByRole('row', { name: /Production \(old\)/ }).waitFor();
    await screenshot(page, '08-key-renamed');

    // Revoke, after confirming the dialog; the key is refused from then on.
    await page.getByRole('button', { name: 'Revoke Production (old)' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke “Production (old)”?' });
    await dialog.waitFor();
    await screenshot(page, '09-revoke-dialog');
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('Key “Production (old)” revoked.').waitFor();
    await page
      .getByRole('row', { name: /Production \(old\)/ })
      .getByText('revoked')
      .waitFor();
    await screenshot(page, '10-key-revoked');
    expect((await search(key)).status).toBe(401);

    // The API the page used says the same.
    const keys = (await page.evaluate(async (id) => (await fetch(`/orgs/${id}/api-keys`)).json(), orgId)) as {
      keys: { name: string; status: string }[];
    };
    expect(keys.keys[0]).toMatchObject({ name: 'Production (old)', status: 'revoked' });
    expect(JSON.stringify(keys)).not.toContain(key);

    // Sign out: the session is gone, the cookie too.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await call(app.url, 'GET', '/auth/session', { token: session!.value })).status).toBe(401);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  test('a used or expired link shows a clear page with a way to request a new one', async () => {
    const { context, page, errors } = await newPage(browser, app);
    const token = await requestLink(page, app.smtp, 'twice@dash.test');
    expect((await call(app.url, 'POST', '/auth/magic-link/verify', { body: { token } })).status).toBe(200);
    await page.goto(`/dashboard/sign-in?token=${token}`);
    await page.getByRole('heading', { name: 'This sign-in link has already been used' }).waitFor();
    await screenshot(page, '11-link-used');

    const expired = await requestLink(page, app.smtp, 'late@dash.test');
    const db = Database.connect(TEST_DATABASE_URL, app.schema, 1);
    await db.query("UPDATE auth_magic_links SET expires_at = now() - interval '1 minute' WHERE used_at IS NULL");
    await db.close();
    await page.goto(`/dashboard/sign-in?token=${expired}`);
    await page.getByRole('heading', { name: 'This sign-in link has expired' }).waitFor();
    expect(await page.content()).not.toMatch(/statusCode|stack|Error:/);
    await screenshot(page, '12-link-expired');
    await page.getByRole('link', { name: 'Request a new link' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();

    await page.goto('/dashboard/sign-in?token=not-a-token');
    await page.getByRole('heading', { name: 'This sign-in link is not valid' }).waitFor();
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  }, 60_000);

  test('keyboard only: sign in and create a key with Tab and Enter, with a visible focus ring', async () => {
    const { context, page } = await newPage(browser, app);
    await page.goto('/dashboard');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await tabTo(page, 'input[name="email"]');
    expect(await focusOutline(page)).not.toBe('none');
    await page.keyboard.type('keys@dash.test');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
    const mail = await app.smtp.waitForMail('keys@dash.test');
    const token = /sign-in\?token=([0-9A-Za-z]+)/.exec(mail.text ?? '')![1]!;
    await page.goto(`/dashboard/sign-in?token=${token}`);
    await page.getByRole('heading', { name: 'Organizations' }).waitFor();

    await tabTo(page, 'form input[name="name"]');
    await page.keyboard.type('Keyboard Inc');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();

    await tabTo(page, 'form input[name="name"]');
    await page.keyboard.type('Typed key');
    await tabTo(page, 'button[type="submit"]');
    expect(await page.evaluate<string | null>('document.activeElement && document.activeElement.textContent')).toBe(
      'Create key',
    );
    expect(await focusOutline(page)).not.toBe('none');
    await page.keyboard.press('Enter');
    const key = await page.getByLabel('API key', { exact: true }).inputValue();
    expect(key).toMatch(/^sk_live_/);
    expect((await search(key)).status).toBe(200);

    // The revoke dialog is keyboard operable too: Escape cancels it, Enter on its button confirms.
    await tabTo(page, 'button[aria-label="Revoke Typed key"]');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect((await search(key)).status).toBe(200);
    await context.close();
  }, 60_000);

  test('at 1280 px, a new organization’s first key is one click: live, every scope, in its project “Default”', async () => {
    const { context, page, errors } = await newPage(browser, app);
    await signInInBrowser(page, app.smtp, 'first@dash.test');
    await page.getByLabel('Organization name').fill('First Steps');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('heading', { name: 'Your first key' }).waitFor();
    await page.getByRole('button', { name: 'Create my first key' }).click();
    const key = await page.getByLabel('API key', { exact: true }).inputValue();
    expect(key).toMatch(/^sk_live_/);
    expect((await search(key)).status).toBe(200);
    const row = page.getByRole('row', { name: /First key/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('Default');
    expect(await row.textContent()).toContain('search, verticals, extract, map, crawl, mcp, research');
    expect(await page.getByRole('heading', { name: 'Your first key' }).count()).toBe(0);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, '15-first-key-created');
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  test('at 360 px wide, every page fits without horizontal scrolling', async () => {
    const { context, page, errors } = await newPage(browser, app, { width: 360, height: 740 });
    await page.goto('/dashboard');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, '20-phone-sign-in');
    await signInInBrowser(page, app.smtp, 'phone@dash.test');
    await page.getByLabel('Organization name').fill('A rather long organization name for a phone');
    await page.getByRole('button', { name: 'Create organization' }).click();
    // The first key in one step: the organization came with its project.
    await page.getByRole('heading', { name: 'Your first key' }).waitFor();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, '20b-phone-first-key');
    await page.getByRole('button', { name: 'Create my first key' }).click();
    const key = await page.getByLabel('API key', { exact: true }).inputValue();
    expect(key).toMatch(/^sk_live_/);
    expect((await search(key)).status).toBe(200);
    await page.getByRole('row', { name: /First key/ }).waitFor();
    expect(await page.getByRole('heading', { name: 'Your first key' }).count()).toBe(0);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, '21-phone-keys');
    for (const [tab, heading, shot] of [
      ['Usage', /^Usage of/, '22-phone-usage'],
      ['Ledger', /^Ledger of/, '23-phone-ledger'],
      ['Projects', /^Projects of/, '24-phone-projects'],
    ] as const) {
      await page.getByRole('link', { name: tab, exact: true }).click();
      await page.getByRole('heading', { name: heading }).waitFor();
      await page.waitForLoadState('networkidle');
      expect({ page: tab, overflow: await horizontalOverflow(page) }).toEqual({ page: tab, overflow: 0 });
      await screenshot(page, shot);
    }
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});

async function waitForText(page: Page, selector: string, text: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await page.locator(selector).textContent({ timeout: 5000 });
    if (value?.trim() === text) return;
    if (Date.now() > deadline) throw new Error(`${selector} shows ${value}, not ${text}`);
    await page.waitForTimeout(300);
    await page.reload();
  }
}

/** Presses Tab until the element matching `selector` has the focus (at most 40 times). */
async function tabTo(page: Page, selector: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    if (
      await page.evaluate<boolean>(
        `!!document.activeElement && document.activeElement.matches(${JSON.stringify(selector)})`,
      )
    )
      return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

const focusOutline = (page: Page) =>
  page.evaluate<string>("document.activeElement ? getComputedStyle(document.activeElement).outlineStyle : 'none'");
