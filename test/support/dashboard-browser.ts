import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { SmtpSink, signInTokenFrom } from './smtp-sink.js';
import { type TestApp, setUpOrganization, useTestApp } from './test-app.js';

/** Debian's Chromium (never a downloaded one); without it the browser tests say they are skipped. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
export const SCREENSHOTS = path.join(process.cwd(), 'test-artifacts', 'dashboard');

/** The widths every screen is checked at: a desktop's and a phone's. */
export const DEVICES = [
  ['desktop', { width: 1280, height: 900 }],
  ['phone', { width: 360, height: 740 }],
] as const;

/** `describe` when Chromium is there; otherwise the block is skipped, and says so. */
export function describeBrowser(name: string, body: () => void): void {
  if (!hasChromium) console.warn(`${name}: skipped, no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`);
  (hasChromium ? describe : describe.skip)(name, body);
}

export interface DashboardRig {
  readonly smtp: SmtpSink;
  readonly app: TestApp;
  readonly browser: Browser;
  /** The signed-in owner of an organization with a project (setUpOrganization). */
  readonly owner: Awaited<ReturnType<typeof setUpOrganization>>;
  /** A fresh browser profile at `viewport`, signed in with `session` (the cookie the dashboard sets; the owner's). */
  signedIn(
    viewport: { width: number; height: number },
    session?: string,
  ): Promise<{ context: BrowserContext; page: Page; errors: string[] }>;
}

/**
 * What a dashboard test file runs against, set up before its tests and closed after them: the dashboard's assets
 * built, an SMTP sink, the app (mailing there; `env` on top), Chromium, and `owner` signed in with an organization.
 */
export function dashboardRig(options: { owner: string; env?: Record<string, string> }): DashboardRig {
  let browser: Browser | undefined;
  let owner: DashboardRig['owner'] | undefined;
  beforeAll(() => buildDashboard(), 120_000);
  // Before the app's teardown: the browser closes while the app still answers its pages.
  afterAll(() => closeBrowser(browser));
  const app = useTestApp({ env: options.env }, 120_000);
  const rig: DashboardRig = {
    app,
    get smtp() {
      return app.smtp;
    },
    get browser() {
      return browser!;
    },
    get owner() {
      return owner!;
    },
    signedIn: async (viewport, session = rig.owner.session) => {
      const opened = await newPage(rig.browser, rig.app, viewport);
      await opened.context.addCookies([{ name: 'session', value: session, url: rig.app.url }]);
      return opened;
    },
  };
  beforeAll(async () => {
    browser = await launchChromium();
    owner = await setUpOrganization(app, app.smtp, options.owner);
  }, 120_000);
  return rig;
}

/** `browser.close()`, and if it has not ended after 15 s, a line on stderr saying so (a teardown that hangs). */
export async function closeBrowser(browser: Browser | undefined): Promise<void> {
  const timer = setTimeout(() => console.error('Chromium has not closed after 15 s'), 15_000);
  try {
    await browser?.close();
  } finally {
    clearTimeout(timer);
  }
}

/** Compiles the dashboard's assets (what `npm run build` does too), so that `npm test` alone works on a fresh clone. */
export function buildDashboard(): void {
  execFileSync(process.execPath, [path.join(process.cwd(), 'dashboard', 'build.mjs')], { stdio: 'inherit' });
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A fresh browser profile; console errors (CSP violations included) are collected in `errors`. */
export async function newPage(
  browser: Browser,
  app: TestApp,
  options: { width?: number; height?: number } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    baseURL: app.url,
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { context, page, errors };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** The sign-in path of a person: the form, the mail from the real SMTP server, the link opened in the browser. */
export async function requestLink(page: Page, smtp: SmtpSink, email: string): Promise<string> {
  smtp.messages.splice(0);
  await page.goto('/dashboard');
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
  await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
  const mail = await smtp.waitForMail(email, 10_000, SmtpSink.SIGN_IN);
  const link = /(https?:\/\/\S+\/dashboard\/sign-in\?token=[0-9A-Za-z]+)/.exec(mail.text ?? '')?.[1];
  if (!link) throw new Error('no dashboard sign-in link in the mail');
  return signInTokenFrom(mail);
}

export async function signInInBrowser(page: Page, smtp: SmtpSink, email: string): Promise<void> {
  const token = await requestLink(page, smtp, email);
  await page.goto(`/dashboard/sign-in?token=${token}`);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Width of the page's content beyond the viewport (0: no horizontal scroll). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
}
