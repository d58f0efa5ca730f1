import { promises as dns } from 'node:dns';
import { access, constants } from 'node:fs/promises';
import { Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Browser, BrowserContext, Route } from 'playwright-core';
import type { AddressPolicy } from '../../fetch/address-policy.js';
import type { PageRenderer, RenderedPage } from './page-renderer.js';
import { type PinnedOriginLimits, PinnedOrigin, RefusedRequestError, type Resolve } from './pinned-origin.js';
import { untilAborted } from '../../common/until-aborted.js';

export type { Resolve } from './pinned-origin.js';

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

/**
 * Chromium's own network stack, for whatever the route handler does not see (a redirect's next hop, anything a
 * future Chromium adds): every name, IP literals included, resolves to nothing, and every connection goes to a
 * dead proxy that nothing bypasses, not even loopback. The browser itself reaches nothing; pages get their bytes
 * from the route handler.
 */
const NO_NETWORK_ARGS = [
  '--host-resolver-rules=MAP * ~NOTFOUND',
  '--proxy-server=http://127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
];

/** Pages rendered at a time (each is a context and a renderer process of the one browser). */
const MAX_CONCURRENT_RENDERS = 4;
/** Starting Chromium, shared by every render (a render waits for it only until its own deadline). */
const LAUNCH_TIMEOUT_MS = 30_000;
/** After a failed launch, how long renders fail at once before Chromium is tried again. */
const LAUNCH_RETRY_MS = 30_000;
/** After the load event, how long the page may keep fetching (its API calls) before we read it. */
const SETTLE_MS = 3000;
const CONNECT_TIMEOUT_MS = 10_000;
const LIMITS: PinnedOriginLimits = {
  maxResponseBytes: 10 * 1024 * 1024,
  maxTotalBytes: 32 * 1024 * 1024,
  maxRequests: 300,
  maxRedirects: 5,
};
/** Requests that cannot change a page's text: refused, which saves time and traffic. */
const SKIPPED_RESOURCE_TYPES = new Set(['image', 'media', 'font', 'texttrack', 'manifest', 'eventsource']);

/**
 * Headless Chromium (playwright-core, never a downloaded browser: `executablePath` is the operator's Chromium) for
 * advanced extraction of JavaScript-built pages. One browser per process, launched on the first render and closed
 * on module destroy (or relaunched after a crash); every render gets a fresh browser context (no cookies, storage
 * or cache shared between pages). The page may only reach its own origin:
 * - before anything starts, its host is checked against the fetcher's SSRF rules and resolved, every address
 *   checked (PinnedOrigin); the document is the HTML the fetcher already got;
 * - every request the page makes goes through the route handler: another origin, or a non-http(s) scheme, is
 *   refused; its own origin is fetched here, over connections to those pinned addresses only (and checked once more
 *   by the fetcher's safe connector), bounded in size, count and time;
 * - Chromium's own network is dead (NO_NETWORK_ARGS), web sockets are closed, service workers blocked, downloads
 *   refused;
 * - the render is bounded by its deadline (and the caller's signal): its context is closed when either fires.
 */
export class ChromiumRenderer implements PageRenderer, OnModuleDestroy {
  private readonly logger = new Logger('ChromiumRenderer');
  private launching: Promise<Browser> | null = null;
  private launchFailure: { error: Error; until: number } | null = null;
  private shutDown = false;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly executablePath: string,
    private readonly policy: AddressPolicy,
    private readonly userAgent: string,
    private readonly resolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, verbatim: true }),
  ) {}

  async render(url: string, html: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<RenderedPage> {
    const documentUrl = new URL(url);
    documentUrl.hash = '';
    const deadline = Date.now() + options.timeoutMs;
    const remaining = () => Math.max(1, deadline - Date.now());
    const stop = new AbortController();
    const timer = setTimeout(
      () => stop.abort(new Error(`rendering timed out after ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const cancel = () => stop.abort(new Error('rendering was cancelled'));
    if (options.signal?.aborted) cancel();
    else options.signal?.addEventListener('abort', cancel, { once: true });
    let origin: PinnedOrigin | undefined;
    try {
      origin = await PinnedOrigin.pin(documentUrl, this.policy, this.resolve, {
        limits: LIMITS,
        signal: stop.signal,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
      });
      await this.acquire(stop.signal);
      try {
        const browser = await untilAborted(this.browser(), stop.signal);
        return await this.renderIn(browser, origin, documentUrl.href, html, stop.signal, remaining);
      } finally {
        this.release();
      }
    } catch (error) {
      // Past the deadline (or cancelled), Playwright's "context closed" errors say less than the reason.
      throw stop.signal.aborted ? (stop.signal.reason as Error) : error;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', cancel);
      await origin?.close();
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.shutDown = true;
    const launching = this.launching;
    this.launching = null;
    const browser = await launching?.catch(() => null);
    await browser?.close().catch((error: Error) => this.logger.warn(`closing Chromium failed: ${error.message}`));
  }

  private async renderIn(
    browser: Browser,
    origin: PinnedOrigin,
    documentUrl: string,
    html: string,
    signal: AbortSignal,
    remaining: () => number,
  ): Promise<RenderedPage> {
    const context = await browser.newContext({
      userAgent: this.userAgent,
      serviceWorkers: 'block',
      acceptDownloads: false,
      javaScriptEnabled: true,
    });
    const close = () => void context.close().catch(() => {});
    if (signal.aborted) close();
    else signal.addEventListener('abort', close, { once: true });
    try {
      await context.routeWebSocket(/.*/, (socket) => socket.close());
      const document = { url: documentUrl, html, served: false };
      await context.route('**/*', (route) => this.serve(route, origin, document));
      const tab = await context.newPage();
      await tab.goto(documentUrl, { waitUntil: 'load', timeout: remaining() });
      await tab.waitForLoadState('networkidle', { timeout: Math.min(SETTLE_MS, remaining()) }).catch(() => {});
      const finalUrl = tab.url();
      if (!origin.allows(finalUrl)) throw new Error(`the page left its origin for ${finalUrl}`);
      return { url: finalUrl, html: await tab.content() };
    } finally {
      signal.removeEventListener('abort', close);
      // Requests still going (a long poll) end first, so that closing the context does not wait on them.
      await origin.close();
      await closeContext(context, this.logger);
    }
  }

  /** Answers one request of the page: its document, its own origin's resources, or a refusal. */
  private async serve(
    route: Route,
    origin: PinnedOrigin,
    document: { url: string; html: string; served: boolean },
  ): Promise<void> {
    const request = route.request();
    try {
      if (!document.served && request.isNavigationRequest() && request.url() === document.url) {
        document.served = true;
        return await route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: document.html });
      }
      if (!origin.allows(request.url()) || SKIPPED_RESOURCE_TYPES.has(request.resourceType()))
        return await route.abort('blockedbyclient');
      const response = await origin.fetch({
        url: request.url(),
        method: request.method(),
        headers: await request.allHeaders(),
        body: request.postDataBuffer(),
      });
      await route.fulfill({ status: response.status, headers: response.headers, body: response.body });
    } catch (error) {
      this.logger.debug(`${request.method()} ${request.url()} not served: ${(error as Error).message}`);
      // The context may be closing already: then there is nothing left to answer.
      await route.abort(error instanceof RefusedRequestError ? 'blockedbyclient' : 'failed').catch(() => {});
    }
  }

  /**
   * The process's browser: launched on first use, again after a crash. A failed launch is not retried for a while
   * (renders fail at once and use the static HTML, instead of each waiting on a Chromium that does not start).
   */
  private browser(): Promise<Browser> {
    if (this.shutDown) return Promise.reject(new Error('the renderer is shut down'));
    if (this.launchFailure && Date.now() < this.launchFailure.until) return Promise.reject(this.launchFailure.error);
    if (!this.launching) {
      const launching = this.launch();
      const forget = () => {
        if (this.launching === launching) this.launching = null;
      };
      this.launching = launching;
      this.launchFailure = null;
      launching.then(
        (browser) => (browser.isConnected() ? browser.on('disconnected', forget) : forget()),
        (error: Error) => {
          forget();
          this.launchFailure = { error, until: Date.now() + LAUNCH_RETRY_MS };
        },
      );
    }
    return this.launching;
  }

  private async launch(): Promise<Browser> {
    // Checked here: Playwright makes the temporary profile before it finds the executable missing, and keeps it.
    await access(this.executablePath, constants.X_OK).catch(() => {
      throw new Error(`Chromium is not an executable file at ${this.executablePath}`);
    });
    const { chromium } = await import('playwright-core');
    // Playwright adds a fresh temporary --user-data-dir (removed when the browser closes) and talks over a pipe.
    const browser = await chromium.launch({
      executablePath: this.executablePath,
      headless: true,
      args: [...CHROMIUM_ARGS, ...NO_NETWORK_ARGS],
      timeout: LAUNCH_TIMEOUT_MS,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    if (this.shutDown) {
      await browser.close().catch(() => {});
      throw new Error('the renderer is shut down');
    }
    this.logger.log(`Chromium ${browser.version()} started`);
    return browser;
  }

  /** A render slot, waited for until `signal` aborts. */
  private acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    if (this.running < MAX_CONCURRENT_RENDERS) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal.removeEventListener('abort', giveUp);
        resolve();
      };
      const giveUp = () => {
        const index = this.waiting.indexOf(wake);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal.reason as Error);
      };
      this.waiting.push(wake);
      signal.addEventListener('abort', giveUp, { once: true });
    });
  }

  /** Hands the slot to the next waiting render, or frees it. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}

async function closeContext(context: BrowserContext, logger: Logger): Promise<void> {
  await context.close().catch((error: Error) => {
    if (context.browser()?.isConnected()) logger.warn(`closing a Chromium context failed: ${error.message}`);
  });
}
