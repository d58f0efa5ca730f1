import type { LookupAddress } from 'node:dns';
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Browser } from 'playwright-core';
import { type AddressPolicy, bareHost } from '../../fetch/address-policy.js';
import type { PageRenderer, RenderedPage } from './page-renderer.js';

/** Chromium's flags: headless, no sandbox (containers), no GPU, QUIC or background traffic of its own. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--dns-prefetch-disable',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];

/** Renders at a time; each one is a Chromium process. */
const MAX_CONCURRENT_RENDERS = 2;
/** After the load event, how long the page may keep fetching (its API calls) before we read it. */
const SETTLE_MS = 3000;

export type Resolve = (hostname: string) => Promise<readonly LookupAddress[]>;

/**
 * Headless Chromium (playwright-core, never a downloaded browser: `executablePath` is the operator's Chromium) for
 * advanced extraction of JavaScript-built pages. The page may only reach its own host:
 * - the host's addresses are resolved and checked against the fetcher's SSRF policy first, and Chromium's resolver
 *   is pinned to them (`--host-resolver-rules`: every other name resolves to nothing);
 * - every request to another host, or to a non-http(s) scheme, is aborted by the route handler, and a dead proxy
 *   (bypassed only for the page's host) catches whatever the handler does not see, such as redirects to an IP;
 * - web sockets are closed, service workers blocked, downloads refused;
 * - one fresh browser per render, closed at the deadline.
 */
export class ChromiumRenderer implements PageRenderer, OnApplicationShutdown {
  private readonly logger = new Logger('ChromiumRenderer');
  private readonly browsers = new Set<Browser>();
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly executablePath: string,
    private readonly policy: AddressPolicy,
    private readonly userAgent: string,
    private readonly resolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, verbatim: true }),
  ) {}

  async render(url: string, html: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<RenderedPage> {
    const deadline = Date.now() + options.timeoutMs;
    await this.acquire();
    try {
      return await this.renderOnce(url, html, deadline, options.signal);
    } finally {
      this.release();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.browsers].map((browser) => browser.close().catch(() => {})));
  }

  private async renderOnce(url: string, html: string, deadline: number, signal?: AbortSignal): Promise<RenderedPage> {
    const page = new URL(url);
    const hostname = bareHost(page.hostname);
    const rules = await this.resolverRules(hostname);
    const { chromium } = await import('playwright-core');
    const remaining = () => Math.max(1, deadline - Date.now());
    const browser = await chromium.launch({
      executablePath: this.executablePath,
      headless: true,
      args: [
        ...CHROMIUM_ARGS,
        `--host-resolver-rules=${rules}`,
        '--proxy-server=http://127.0.0.1:9',
        `--proxy-bypass-list=<-loopback>;${page.hostname}`,
      ],
      timeout: remaining(),
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    this.browsers.add(browser);
    const abort = () => void browser.close().catch(() => {});
    signal?.addEventListener('abort', abort, { once: true });
    const timer = setTimeout(abort, remaining());
    try {
      const context = await browser.newContext({
        userAgent: this.userAgent,
        serviceWorkers: 'block',
        acceptDownloads: false,
        javaScriptEnabled: true,
      });
      await context.routeWebSocket(/.*/, (socket) => socket.close());
      let documentServed = false;
      await context.route('**/*', async (route) => {
        const request = route.request();
        let target: URL;
        try {
          target = new URL(request.url());
        } catch {
          return route.abort('blockedbyclient');
        }
        if (!documentServed && request.isNavigationRequest() && target.href === page.href) {
          documentServed = true;
          return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html });
        }
        const allowed =
          (target.protocol === 'http:' || target.protocol === 'https:') &&
          target.host === page.host &&
          this.policy.checkHost(target.hostname) === null;
        return allowed ? route.continue() : route.abort('blockedbyclient');
      });
      const tab = await context.newPage();
      await tab.goto(page.href, { waitUntil: 'load', timeout: remaining() });
      await tab.waitForLoadState('networkidle', { timeout: Math.min(SETTLE_MS, remaining()) }).catch(() => {});
      return { url: tab.url(), html: await tab.content() };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      this.browsers.delete(browser);
      await browser.close().catch((error: Error) => this.logger.warn(`closing Chromium failed: ${error.message}`));
    }
  }

  /** The page host pinned to its checked addresses; every other name unresolvable. Throws when refused. */
  private async resolverRules(hostname: string): Promise<string> {
    if (isIP(hostname)) {
      const refusal = this.policy.checkHost(hostname);
      if (refusal) throw refusal;
      return 'MAP * ~NOTFOUND';
    }
    const refusal = this.policy.checkHost(hostname);
    if (refusal) throw refusal;
    const addresses = await this.resolve(hostname);
    if (addresses.length === 0) throw new Error(`could not resolve ${hostname}`);
    for (const { address } of addresses) {
      const refused = this.policy.checkAddress(address, hostname);
      if (refused) throw refused;
    }
    const first = addresses[0]!.address;
    return `MAP ${hostname} ${isIP(first) === 6 ? `[${first}]` : first}, MAP * ~NOTFOUND`;
  }

  private async acquire(): Promise<void> {
    if (this.running < MAX_CONCURRENT_RENDERS) {
      this.running++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}
