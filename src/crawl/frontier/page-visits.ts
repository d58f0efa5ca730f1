import { nullWhenAborted } from '../../common/until-aborted.js';
import { keyOf, normalizeUrl } from '../../documents/normalize-url.js';
import { isAssetUrl } from '../url-kinds.js';
import type { Entry } from './frontier-entries.js';
import type { PageCopies, PageVisit, PageVisitor, VisitContext } from './frontier-plan.js';
import { isResult } from './results.js';
import { DEFAULT_CONCURRENCY, type RunState } from './run-state.js';

const DEFAULT_PAGE_TIMEOUT_MS = 15_000;
const DEADLINE_GRACE_MS = 1_000;

/**
 * Visiting the pages a run found: a few at a time, each from the page cache's copy when there is one, else through
 * the visitor within the page's time; a page is known by where it landed (redirects), so two URLs of one page are
 * one result; a visited page's other sites' robots.txt are loaded ahead of discovery.
 */
export class PageVisits<P> {
  constructor(
    private readonly run: RunState<P>,
    private readonly visitor: PageVisitor<P>,
    private readonly copies: PageCopies<P> | null,
  ) {}

  async visitAll(level: Entry<P>[]): Promise<void> {
    const concurrency = this.run.plan.concurrency ?? DEFAULT_CONCURRENCY;
    let next = 0;
    const worker = async () => {
      while (next < level.length && !this.run.signal.aborted) {
        const entry = level[next++]!;
        try {
          await this.visit(entry);
        } finally {
          entry.settle();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, level.length) }, worker));
  }
  async visit(entry: Entry<P>): Promise<void> {
    if (entry.state !== 'pending') return;
    if (this.run.found.landed.has(entry.key)) {
      entry.state = 'duplicate';
      return;
    }
    const pageTimeoutMs = this.run.plan.pageTimeoutMs ?? DEFAULT_PAGE_TIMEOUT_MS;
    if (this.run.plan.deadline <= Date.now()) return;
    let visit: PageVisit<P> | null = await this.copyOf(entry.url);
    try {
      const remaining = this.run.plan.deadline - Date.now();
      if (!visit && !this.run.signal.aborted && remaining > 0) {
        // A little past the deadline: a visit still running then is cut short by the run, not failed by its own
        // timeout (a map keeps such a page listed).
        const budget = Math.min(pageTimeoutMs, remaining + DEADLINE_GRACE_MS);
        const context: VisitContext = {
          signal: this.run.signal,
          timeoutMs: budget,
          followLinks: entry.depth < this.run.plan.maxDepth,
          politely: (request) => this.run.site.politely(entry.url, request),
        };
        visit = await nullWhenAborted(this.visitor(entry.url, context), this.run.signal);
      }
    } catch (error) {
      if (entry.depth === 0) this.run.startError = error;
      visit = null;
    }
    if (!visit) {
      // A visit the deadline cut short did not fail: the page stays pending (a map lists it, as if at the last level;
      // a crawl counts it as left).
      if (this.run.signal.aborted) return;
      entry.state = 'failed';
      this.run.failed++;
      return;
    }
    this.run.visited++;
    const final = normalizeUrl(visit.url) ?? entry.url;
    const finalKey = keyOf(final) ?? entry.key;
    const holder = this.run.found.landed.get(finalKey);
    if (holder && holder !== entry) {
      entry.state = 'duplicate';
      holder.anchors.push(...entry.anchors);
      return;
    }
    this.run.found.landed.set(finalKey, entry);
    if (finalKey !== entry.key) {
      const finalUrl = new URL(final);
      if (entry.depth === 0) {
        this.run.plan.filters.addSite(finalUrl.hostname);
      } else if (!this.run.plan.filters.admits(finalUrl)) {
        entry.state = 'failed';
        this.run.failed++;
        return;
      }
      const twin = this.run.found.byKey.get(finalKey);
      if (twin && twin !== entry && twin.state === 'pending') {
        twin.state = 'duplicate';
        entry.anchors.push(...twin.anchors);
      }
      // Later links to the final URL are links to this page.
      this.run.found.byKey.set(finalKey, entry);
    }
    entry.url = final;
    entry.state = 'visited';
    entry.visit = visit;
    if (visit.linksOnly) this.run.failed++;
    else if (this.run.plan.onPage && isResult(this.run, entry)) {
      this.run.plan.onPage({ url: entry.url, depth: entry.depth, visit: entry.visit });
    }
    if (entry.depth < this.run.plan.maxDepth) this.prefetchRobots(entry);
  }
  /** The page cache's copy of the page, if it has one the run may take (never waits past the run's end). */
  private async copyOf(url: string): Promise<PageVisit<P> | null> {
    if (!this.copies) return null;
    return nullWhenAborted(this.copies(url), this.run.signal).catch(() => null);
  }
  /**
   * Loads robots.txt of the other sites this page links to, all at once and without waiting: discovery checks its
   * candidates one by one, and would otherwise wait for each unknown site's robots.txt in turn.
   */
  prefetchRobots(entry: Entry<P>): void {
    if (!entry.visit || entry.visit.noFollow || this.run.found.isFull()) return;
    const own = new URL(entry.url).origin;
    const origins = new Map<string, string>();
    let seen = 0;
    for (const link of entry.visit.links) {
      if (seen >= this.run.plan.maxBreadth) break;
      let url: URL;
      try {
        url = new URL(link.url);
      } catch {
        continue;
      }
      if (this.run.found.byKey.has(keyOf(link.url) ?? '') || isAssetUrl(url) || !this.run.plan.filters.admits(url))
        continue;
      seen++;
      if (url.origin !== own && !origins.has(url.origin)) origins.set(url.origin, link.url);
    }
    for (const url of origins.values()) void this.run.site.allowedByRobots(url);
  }
}
