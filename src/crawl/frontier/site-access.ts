import { trimEndChars } from '../../common/linear-text.js';
import type { Fetcher, RobotsPolicy } from '../../fetch/fetcher.port.js';
import type { HostScheduler } from '../../fetch/host-scheduler.js';
import type { FrontierPlan } from './frontier-plan.js';
import { normalizeUrl } from '../../documents/normalize-url.js';
import { parseSitemap } from '../sitemap.js';

const SITEMAP_TIMEOUT_MS = 10_000;
const MAX_SITEMAP_FILES = 10;
const MAX_SITEMAP_NESTING = 3;
/** A crawl-delay beyond this is treated as this (the deadline bounds the crawl anyway). */
const MAX_CRAWL_DELAY_MS = 30_000;

/**
 * How a frontier run reaches the sites it visits: what robots.txt allows, each request at its host's turn (the
 * shared HostScheduler, spaced by the site's crawl-delay), and the start URL's sitemaps.
 */
export class SiteAccess {
  constructor(
    private readonly plan: Pick<FrontierPlan, 'startUrl' | 'deadline' | 'filters'>,
    private readonly fetcher: Fetcher,
    private readonly robots: RobotsPolicy,
    private readonly scheduler: HostScheduler,
    private readonly signal: AbortSignal,
  ) {}

  /** Runs a request to `url`'s host through the shared HostScheduler, spaced by the site's crawl-delay. */
  async politely<T>(url: string, task: () => Promise<T>): Promise<T> {
    const delay = await this.robots.crawlDelayMs(new URL(url).origin).catch(() => null);
    return this.scheduler.run(url, task, { delayMs: Math.min(delay ?? 0, MAX_CRAWL_DELAY_MS), signal: this.signal });
  }

  async allowedByRobots(url: string): Promise<boolean> {
    try {
      return await this.robots.isAllowed(url);
    } catch {
      return false;
    }
  }

  /** Why robots.txt refuses `url` (null when it does not say, or cannot be read). */
  disallowedBecause(url: string): Promise<string | null> {
    return this.robots.disallowedBecause(url).catch(() => null);
  }

  /**
   * Up to `wanted` pages of the start URL's sitemaps that lie on its site and under its directory, in sitemap order. Sitemaps
   * come from robots.txt and /sitemap.xml; index files are followed (a few levels, a few files).
   */
  async sitemapPages(wanted: number): Promise<string[]> {
    const start = new URL(this.plan.startUrl);
    const fromRobots = await this.robots.sitemaps(start.origin).catch(() => [] as string[]);
    const queue: { url: string; nesting: number; listedInRobots: boolean }[] = [];
    const queued = new Set<string>();
    const enqueue = (url: string, nesting: number, listedInRobots: boolean) => {
      const normalized = normalizeUrl(url, start);
      if (!normalized || queued.has(normalized)) return;
      queued.add(normalized);
      queue.push({ url: normalized, nesting, listedInRobots });
    };
    for (const url of fromRobots) enqueue(url, 0, true);
    enqueue(`${start.origin}/sitemap.xml`, 0, false);

    const scope = directoryOf(start.pathname);
    const pages: string[] = [];
    let files = 0;
    while (queue.length > 0 && files < MAX_SITEMAP_FILES && pages.length < wanted && !this.signal.aborted) {
      const file = queue.shift()!;
      if (!file.listedInRobots && !(await this.allowedByRobots(file.url))) continue;
      files++;
      const body = await this.fetchSitemap(file.url);
      if (!body) continue;
      const sitemap = parseSitemap(body, file.url);
      if (sitemap.kind === 'index') {
        // Depth first: an index's sitemaps are read before the next file of the queue.
        if (file.nesting < MAX_SITEMAP_NESTING) {
          const before = queue.length;
          for (const loc of sitemap.locs) enqueue(loc, file.nesting + 1, true);
          queue.unshift(...queue.splice(before));
        }
        continue;
      }
      for (const loc of sitemap.locs) {
        const url = new URL(loc);
        if (this.plan.filters.isExternal(url) || !inDirectory(url.pathname, scope)) continue;
        pages.push(loc);
        if (pages.length >= wanted) break;
      }
    }
    return pages;
  }

  private async fetchSitemap(url: string): Promise<Buffer | null> {
    const timeoutMs = Math.min(SITEMAP_TIMEOUT_MS, this.plan.deadline - Date.now());
    if (timeoutMs <= 0) return null;
    try {
      const resource = await this.politely(url, () =>
        this.fetcher.fetch(url, {
          timeoutMs,
          signal: this.signal,
          maxBytes: 50 * 1024 * 1024,
          accept: 'application/xml,text/xml;q=0.9,text/plain;q=0.5,*/*;q=0.1',
        }),
      );
      return resource.body;
    } catch {
      return null;
    }
  }
}

/** `/docs/` for `/docs/`, `/docs/intro.html` and `/docs` (a last segment without a dot is a directory). */
function directoryOf(pathname: string): string {
  const lastSlash = pathname.lastIndexOf('/');
  const last = pathname.slice(lastSlash + 1);
  const directory = last.includes('.') ? pathname.slice(0, lastSlash + 1) : `${trimEndChars(pathname, '/')}/`;
  return directory || '/';
}

function inDirectory(pathname: string, directory: string): boolean {
  return directory === '/' || pathname.startsWith(directory) || `${pathname}/` === directory;
}
