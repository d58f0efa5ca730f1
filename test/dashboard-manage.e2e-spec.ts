import type { Browser } from 'playwright-core';
import {
  buildDashboard,
  hasChromium,
  horizontalOverflow,
  launchChromium,
  newPage,
  screenshot,
} from './support/dashboard-browser.js';
import { SmtpSink } from './support/smtp-sink.js';
import { type TestApp, call, dropSchema, setUpOrganization, startTestApp } from './support/test-app.js';

if (!hasChromium) console.warn('dashboard browser tests skipped: no Chromium at /usr/bin/chromium (set CHROMIUM_PATH)');
const describeBrowser = hasChromium ? describe : describe.skip;

const DEVICES = [
  ['desktop', { width: 1280, height: 900 }],
  ['phone', { width: 360, height: 740 }],
] as const;

/** Managing what exists: renaming a project, a key's own page. Each screen at desktop and phone widths. */
describeBrowser('the dashboard manages projects and keys', () => {
  let smtp: SmtpSink;
  let app: TestApp;
  let browser: Browser;
  let owner: Awaited<ReturnType<typeof setUpOrganization>>;

  beforeAll(async () => {
    buildDashboard();
    smtp = await SmtpSink.start();
    app = await startTestApp({ env: { SMTP_URL: smtp.url } });
    browser = await launchChromium();
    owner = await setUpOrganization(app, smtp, 'owner@manage.test');
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await smtp?.stop();
    if (app) await dropSchema(app.schema);
  });

  const signedIn = async (viewport: { width: number; height: number }, session = owner.session) => {
    const opened = await newPage(browser, app, viewport);
    await opened.context.addCookies([{ name: 'session', value: session, url: app.url }]);
    return opened;
  };
  const projectName = async (projectId: string) =>
    (
      (await call(app.url, 'GET', `/orgs/${owner.orgId}/projects`, { token: owner.session })).body.projects as {
        id: string;
        name: string;
      }[]
    ).find((p) => p.id === projectId)?.name;

  for (const [device, viewport] of DEVICES) {
    test(`Projects (${device}): rename a project in place; an empty name is refused inline; the API has the new name`, async () => {
      const { context, page, errors } = await signedIn(viewport);
      await page.goto(`/dashboard/orgs/${owner.orgId}/projects`);
      await page.getByRole('heading', { name: /^Projects of/ }).waitFor();
      const current = (await projectName(owner.projectId))!;
      await page.getByRole('button', { name: `Rename ${current}` }).click();
      const input = page.getByLabel('New name');
      await input.fill('   ');
      await input.press('Enter');
      await page.getByText('A name is required.').waitFor();
      expect(await projectName(owner.projectId)).toBe(current);
      await screenshot(page, `40-project-rename-${device}`);

      const renamed = `Backend ${device}`;
      await input.fill(renamed);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText(`Project renamed to “${renamed}”.`).waitFor();
      await page.getByRole('button', { name: `Rename ${renamed}` }).waitFor();
      expect(await projectName(owner.projectId)).toBe(renamed);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `41-project-renamed-${device}`);

      // Escape leaves the name as it was.
      await page.getByRole('button', { name: `Rename ${renamed}` }).click();
      await page.getByLabel('New name').fill('not saved');
      await page.getByLabel('New name').press('Escape');
      await page.getByRole('button', { name: `Rename ${renamed}` }).waitFor();
      expect(await projectName(owner.projectId)).toBe(renamed);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }

  test('Projects: a plain member sees the names without a Rename button', async () => {
    const added = await call(app.url, 'POST', `/orgs/${owner.orgId}/members`, {
      token: owner.session,
      body: { email: 'reader@manage.test', role: 'member' },
    });
    expect(added.status).toBe(201);
    const reader = await setUpOrganization(app, smtp, 'reader@manage.test');
    const { context, page, errors } = await signedIn({ width: 1280, height: 900 }, reader.session);
    await page.goto(`/dashboard/orgs/${owner.orgId}/projects`);
    await page.getByRole('heading', { name: /^Projects of/ }).waitFor();
    await page.getByText((await projectName(owner.projectId))!, { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: /^Rename / }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
