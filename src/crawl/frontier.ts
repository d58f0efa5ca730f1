import { setMaxListeners } from 'node:events';
import type { Fetcher, RobotsPolicy } from '../fetch/fetcher.port.js';
import type { HostScheduler } from '../fetch/host-scheduler.js';
import { nullWhenAborted } from '../common/until-aborted.js';
import type {
  FrontierOutcome,
  FrontierPage,
  FrontierPlan,
  FrontierStop,
  PageCopies,
  PageVisit,
  PageVisitor,
  VisitContext,
} from './frontier-plan.js';
import { type Candidate, type Entry, FrontierEntries } from './frontier-entries.js';
import { LinkQueue } from './link-queue.js';
import { categoriesFirst } from './page-categories.js';
import { keyOf, normalizeUrl } from '../documents/normalize-url.js';
import { type RelevanceFields, type RelevanceRanker, pathOf } from './relevance.js';
import { SiteAccess } from './site-access.js';
import { isAssetUrl } from './url-kinds.js';

export type {
  FrontierOutcome,
  FrontierPage,
  FrontierPlan,
  FrontierStop,
  PageCopies,
  PageVisit,
  PageVisitor,
  VisitContext,
};

const DEFAULT_CONCURRENCY = 8;
const DEFAULT_PAGE_TIMEOUT_MS = 15_000;
const DEADLINE_GRACE_MS = 1_000;
const MAX_SIGNAL_LISTENERS = 500;
/** With instructions, a run looks at this many times `limit` pages, then keeps the best `limit`. */
const RANKED_DISCOVERY_FACTOR = 3;
/** A link's priority adds the relevance of the page that links to it at this weight (its own link score at 1). */
const PARENT_WEIGHT = 0.5;
export const MAX_DISCOVERED_PAGES = 3000;

/** The start page was not visited: robots.txt disallows it, or could not be read. */
export class StartDisallowedError extends Error {
  readonly code = 'robots_disallowed';

  constructor(reason: string | null) {
    super(reason ?? 'its robots.txt disallows it');
    this.name = 'StartDisallowedError';
  }
}

/**
 * The frontier map and crawl share. Breadth-first from the start URL, level by level (so results come in a stable
 * order): every page of depth d is visited (fetched for its links, or extracted) before any page of depth d+1.
 *
 * - Depth: the start page is depth 0; its links are depth 1; `max_depth` is the deepest level listed.
 * - Breadth: of each visited page's links, the first `max_breadth` new ones that pass the filters and robots.txt are
 *   followed (with instructions: the `max_breadth` whose URL, anchor text and heading match them best).
 * - Instructions: the run is best-first instead (runBestFirst): the most promising pages are visited first, a map's
 *   last level is fetched too (for the pages' titles and headings), and up to `limit` × RANKED_DISCOVERY_FACTOR
 *   pages are looked at, of which the `limit` most relevant are returned (relevance.ts).
 * - Categories: the results of those kinds (told by their path) come before the others, before the limit is applied;
 *   the run visits the same pages with or without them.
 * - Limit: the number of pages the results may hold. A map lists pages of the last level without fetching them; a
 *   crawl visits (extracts) every page it lists, so its limit bounds the pages processed (without instructions).
 * - Sitemaps (from robots.txt and /sitemap.xml, index files followed) add the pages they list under the start URL's
 *   directory as depth-1 pages, after the start page's own links.
 * - Politeness: robots.txt is checked for every page before it is listed or fetched; fetches go through the shared
 *   HostScheduler (a few at a time per host, spaced by the site's crawl-delay).
 * - Copies: a run given PageCopies (crawl's page cache) takes a page's copy instead of fetching it, when there is one;
 *   the page is taken by the same rules (robots.txt, filters, depth, breadth, limit) and counts as visited.
 * - Time: at the deadline, nothing new starts, visits in flight are aborted, and what is done is returned, with
 *   what was left (`stop`).
 * - Pipelining (crawl without instructions): the pages of depth d+1 are found from the pages of depth d in their
 *   order, each parent as soon as it is visited, and visited as soon as they are found; so the next level starts
 *   while the last pages of this one are still being extracted (the same pages, in the same order, as level by
 *   level). With instructions the run is best-first instead (see Instructions).
 * - Redirects: a page is known by its final URL; two URLs that land on one page are one result.
 */
export class Frontier {
  constructor(
    private readonly fetcher: Fetcher,
    private readonly robots: RobotsPolicy,
    private readonly scheduler: HostScheduler,
  ) {}

  run<P>(plan: FrontierPlan, visitor: PageVisitor<P>, copies?: PageCopies<P>): Promise<FrontierOutcome<P>> {
    return new FrontierRun(plan, visitor, this.fetcher, this.robots, this.scheduler, copies ?? null).run();
  }
}

class FrontierRun<P> {
  private readonly found: FrontierEntries<P>;
  private readonly controller = new AbortController();
  private readonly ranker: RelevanceRanker | null;
  private readonly capacity: number;
  private visited = 0;
  private failed = 0;
  private startError: unknown = null;
  /** Workers waiting for the pipelined discovery to add pages (or to end). */
  private wakers: (() => void)[] = [];
  private readonly aborted: Promise<void>;

  private readonly site: SiteAccess;

  constructor(
    private readonly plan: FrontierPlan,
    private readonly visitor: PageVisitor<P>,
    fetcher: Fetcher,
    robots: RobotsPolicy,
    scheduler: HostScheduler,
    private readonly copies: PageCopies<P> | null,
  ) {
    // Every visit in flight listens to the run's signal, several times over (scheduler, fetch, the run itself).
    setMaxListeners(MAX_SIGNAL_LISTENERS, this.controller.signal);
    this.ranker = plan.ranker?.active ? plan.ranker : null;
    this.capacity = this.ranker ? Math.min(plan.limit * RANKED_DISCOVERY_FACTOR, MAX_DISCOVERED_PAGES) : plan.limit;
    this.found = new FrontierEntries(plan.mode, this.capacity, () => this.wake());
    this.aborted = new Promise((resolve) => this.signal.addEventListener('abort', () => resolve(), { once: true }));
    this.site = new SiteAccess(plan, fetcher, robots, scheduler, this.signal);
  }

  private get signal(): AbortSignal {
    return this.controller.signal;
  }

  async run(): Promise<FrontierOutcome<P>> {
    const remaining = this.plan.deadline - Date.now();
    const timer = setTimeout(
      () => this.controller.abort(new Error('the time budget is spent')),
      Math.max(0, remaining),
    );
    try {
      const sitemapPages = this.site.sitemapPages(this.capacity * 2).catch(() => [] as string[]);
      const start = this.plan.startUrl;
      if (await this.site.allowedByRobots(start)) {
        this.found.add(start, 0, [], this.plan.filters.admits(new URL(start)));
      } else {
        this.startError = new StartDisallowedError(await this.site.disallowedBecause(start));
      }
      if (this.ranker) await this.runBestFirst(sitemapPages);
      else if (this.plan.mode === 'crawl') await this.runPipelined(sitemapPages);
      else await this.runByLevel(sitemapPages);
      const timedOut = this.signal.aborted;
      const ranked = this.ranked();
      return {
        pages: this.results(ranked),
        visited: this.visited,
        failed: this.failed,
        timedOut,
        stop: this.stopReason(timedOut, ranked),
        startError: this.startError,
      };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Level by level (a map without instructions): every page of a level visited, then the next level found from them. */
  private async runByLevel(sitemapPages: Promise<string[]>): Promise<void> {
    for (let depth = 0; depth <= this.plan.maxDepth && !this.signal.aborted; depth++) {
      const level = this.found.all.filter((entry) => entry.depth === depth);
      const visitLevel =
        this.plan.mode === 'crawl' || (depth < this.plan.maxDepth && (depth === 0 || this.found.hasRoom()));
      if (visitLevel) await this.visitAll(level);
      if (depth >= this.plan.maxDepth || this.signal.aborted) continue;
      await this.discoverFrom(level, depth + 1);
      if (depth === 0) await this.addSitemapPages(await sitemapPages);
    }
  }

  /**
   * Best-first (with instructions): the links chosen from visited pages wait in one queue, the most promising first
   * (the instructions' terms in their URL, anchor text and the heading above them, plus the relevance of the page
   * linking to them), and are visited a wave (`concurrency` pages) at a time, each wave's links queued before the
   * next wave is chosen (so a run's pages do not depend on which fetch ends first). A map fetches its last level too,
   * for the pages' own titles and headings. Ends when nothing is left to take, the run holds `capacity` pages, or at
   * the deadline; a map then lists, unfetched, what it had found and not taken (as it lists its last level without
   * instructions).
   */
  private async runBestFirst(sitemapPages: Promise<string[]>): Promise<void> {
    const queue = new LinkQueue();
    const claimed = new Set<string>();
    const concurrency = Math.max(1, this.plan.concurrency ?? DEFAULT_CONCURRENCY);
    let wave = [...this.found.all];
    let sitemapsRead = false;
    for (;;) {
      await this.visitAll(wave);
      if (this.signal.aborted) break;
      for (const parent of wave) await this.queueLinksOf(parent, queue, claimed);
      if (!sitemapsRead && this.plan.maxDepth >= 1) {
        sitemapsRead = true;
        await this.queueSitemapPages(await Promise.race([sitemapPages, this.aborted.then(() => [])]), queue, claimed);
      }
      wave = [];
      while (wave.length < concurrency && this.found.hasRoom() && !this.signal.aborted) {
        const link = queue.take();
        if (!link) break;
        if (this.found.isKnown(link.key)) continue;
        wave.push(this.found.add(link.url, link.depth, link.anchors, true));
      }
      if (wave.length === 0 || this.signal.aborted) break;
    }
    for (const link of queue.takeAll()) {
      if (this.found.isKnown(link.key)) continue;
      if (this.plan.mode === 'map' && this.signal.aborted && this.found.hasRoom())
        this.found.add(link.url, link.depth, link.anchors, true);
      else this.found.overLimit.add(link.key);
    }
  }

  /** Queues a visited page's links (up to `max_breadth` new ones, as `linksOf` chooses them), and its links to pages already queued again. */
  private async queueLinksOf(parent: Entry<P>, queue: LinkQueue, claimed: Set<string>): Promise<void> {
    const ranker = this.ranker!;
    if (parent.depth >= this.plan.maxDepth || !parent.visit) return;
    const depth = parent.depth + 1;
    const inherited = PARENT_WEIGHT * ranker.pageScore(parent.visit);
    if (!parent.visit.noFollow) {
      for (const link of parent.visit.links) {
        const key = keyOf(link.url);
        if (!key || !queue.has(key)) continue;
        const priority = ranker.linkScore(link.url, link.text, link.context) + inherited;
        queue.offer({ url: link.url, key, depth, priority, anchor: link.text });
      }
    }
    for (const candidate of await this.linksOf(parent, claimed)) {
      const key = keyOf(candidate.url)!;
      queue.offer({ url: candidate.url, key, depth, priority: candidate.score + inherited, anchor: candidate.anchor });
    }
  }

  /** Queues the sitemap pages at depth 1, by how well their URL matches the instructions. */
  private async queueSitemapPages(urls: string[], queue: LinkQueue, claimed: Set<string>): Promise<void> {
    for (const url of urls) {
      if (this.signal.aborted) return;
      const key = keyOf(url);
      if (!key || this.found.byKey.has(key) || this.found.landed.has(key) || claimed.has(key)) continue;
      const parsed = new URL(url);
      if (isAssetUrl(parsed) || !this.plan.filters.admits(parsed)) continue;
      if (!(await this.site.allowedByRobots(url))) continue;
      claimed.add(key);
      queue.offer({ url, key, depth: 1, priority: this.ranker!.linkScore(url, ''), anchor: '' });
    }
  }

  /**
   * Visits and discovery at once: `concurrency` workers visit the pages in the order they were found (breadth-first),
   * while discovery reads the visited pages' links in that same order, each page as soon as its visit is over.
   */
  private async runPipelined(sitemapPages: Promise<string[]>): Promise<void> {
    let discovering = true;
    let next = 0;
    const worker = async () => {
      for (;;) {
        if (this.signal.aborted) return;
        if (next < this.found.all.length) {
          const entry = this.found.all[next++]!;
          try {
            await this.visit(entry);
          } finally {
            entry.settle();
          }
          continue;
        }
        if (!discovering) return;
        await new Promise<void>((resolve) => this.wakers.push(resolve));
      }
    };
    const discovery = async () => {
      try {
        for (let depth = 0; depth < this.plan.maxDepth && !this.signal.aborted; depth++) {
          // Complete: the discovery of this level (and the sitemap pages, at depth 1) is over.
          const level = this.found.all.filter((entry) => entry.depth === depth);
          const claimed = new Set<string>();
          for (const parent of level) {
            await Promise.race([parent.settled, this.aborted]);
            if (this.signal.aborted) return;
            for (const candidate of await this.linksOf(parent, claimed)) this.found.take(candidate, depth + 1);
          }
          if (depth === 0) await this.addSitemapPages(await Promise.race([sitemapPages, this.aborted.then(() => [])]));
        }
      } finally {
        discovering = false;
        this.wake();
      }
    };
    const workers = Math.max(1, this.plan.concurrency ?? DEFAULT_CONCURRENCY);
    await Promise.all([discovery(), ...Array.from({ length: workers }, worker)]);
  }

  private wake(): void {
    const wakers = this.wakers;
    this.wakers = [];
    for (const wake of wakers) wake();
  }

  private async visitAll(level: Entry<P>[]): Promise<void> {
    const concurrency = this.plan.concurrency ?? DEFAULT_CONCURRENCY;
    let next = 0;
    const worker = async () => {
      while (next < level.length && !this.signal.aborted) {
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

  private async visit(entry: Entry<P>): Promise<void> {
    if (entry.state !== 'pending') return;
    if (this.found.landed.has(entry.key)) {
      entry.state = 'duplicate';
      return;
    }
    const pageTimeoutMs = this.plan.pageTimeoutMs ?? DEFAULT_PAGE_TIMEOUT_MS;
    if (this.plan.deadline <= Date.now()) return;
    let visit: PageVisit<P> | null = await this.copyOf(entry.url);
    try {
      const remaining = this.plan.deadline - Date.now();
      if (!visit && !this.signal.aborted && remaining > 0) {
        // A little past the deadline: a visit still running then is cut short by the run, not failed by its own
        // timeout (a map keeps such a page listed).
        const budget = Math.min(pageTimeoutMs, remaining + DEADLINE_GRACE_MS);
        const context: VisitContext = {
          signal: this.signal,
          timeoutMs: budget,
          followLinks: entry.depth < this.plan.maxDepth,
          politely: (request) => this.site.politely(entry.url, request),
        };
        visit = await nullWhenAborted(this.visitor(entry.url, context), this.signal);
      }
    } catch (error) {
      if (entry.depth === 0) this.startError = error;
      visit = null;
    }
    if (!visit) {
      // A visit the deadline cut short did not fail: the page stays pending (a map lists it, as if at the last level;
      // a crawl counts it as left).
      if (this.signal.aborted) return;
      entry.state = 'failed';
      this.failed++;
      return;
    }
    this.visited++;
    const final = normalizeUrl(visit.url) ?? entry.url;
    const finalKey = keyOf(final) ?? entry.key;
    const holder = this.found.landed.get(finalKey);
    if (holder && holder !== entry) {
      entry.state = 'duplicate';
      holder.anchors.push(...entry.anchors);
      return;
    }
    this.found.landed.set(finalKey, entry);
    if (finalKey !== entry.key) {
      const finalUrl = new URL(final);
      if (entry.depth === 0) {
        this.plan.filters.addSite(finalUrl.hostname);
      } else if (!this.plan.filters.admits(finalUrl)) {
        entry.state = 'failed';
        this.failed++;
        return;
      }
      const twin = this.found.byKey.get(finalKey);
      if (twin && twin !== entry && twin.state === 'pending') {
        twin.state = 'duplicate';
        entry.anchors.push(...twin.anchors);
      }
      // Later links to the final URL are links to this page.
      this.found.byKey.set(finalKey, entry);
    }
    entry.url = final;
    entry.state = 'visited';
    entry.visit = visit;
    if (visit.linksOnly) this.failed++;
    else if (this.plan.onPage && this.isResult(entry)) {
      this.plan.onPage({ url: entry.url, depth: entry.depth, visit: entry.visit });
    }
    if (entry.depth < this.plan.maxDepth) this.prefetchRobots(entry);
  }

  /** The page cache's copy of the page, if it has one the run may take (never waits past the run's end). */
  private async copyOf(url: string): Promise<PageVisit<P> | null> {
    if (!this.copies) return null;
    return nullWhenAborted(this.copies(url), this.signal).catch(() => null);
  }

  /**
   * Loads robots.txt of the other sites this page links to, all at once and without waiting: discovery checks its
   * candidates one by one, and would otherwise wait for each unknown site's robots.txt in turn.
   */
  private prefetchRobots(entry: Entry<P>): void {
    if (!entry.visit || entry.visit.noFollow || this.found.isFull()) return;
    const own = new URL(entry.url).origin;
    const origins = new Map<string, string>();
    let seen = 0;
    for (const link of entry.visit.links) {
      if (seen >= this.plan.maxBreadth) break;
      let url: URL;
      try {
        url = new URL(link.url);
      } catch {
        continue;
      }
      if (this.found.byKey.has(keyOf(link.url) ?? '') || isAssetUrl(url) || !this.plan.filters.admits(url)) continue;
      seen++;
      if (url.origin !== own && !origins.has(url.origin)) origins.set(url.origin, link.url);
    }
    for (const url of origins.values()) void this.site.allowedByRobots(url);
  }

  /** The next level: from each visited page of this one, up to `max_breadth` new links, within the limit. */
  private async discoverFrom(level: Entry<P>[], depth: number): Promise<void> {
    const chosen: Candidate[] = [];
    const claimed = new Set<string>();
    for (const parent of level) chosen.push(...(await this.linksOf(parent, claimed)));
    for (const candidate of chosen) this.found.take(candidate, depth);
  }

  /**
   * A visited page's links to follow: up to `max_breadth` new ones (not already found, nor `claimed` by an earlier
   * page of its level) that pass the filters and robots.txt, best first with instructions. Marks the page read.
   */
  private async linksOf(parent: Entry<P>, claimed: Set<string>): Promise<Candidate[]> {
    parent.linksRead = true;
    if (parent.state !== 'visited' || !parent.visit || parent.visit.noFollow) return [];
    const candidates = this.candidatesOf(parent.visit, claimed, true);
    if (this.found.isFull()) {
      // A full crawl takes nothing more: its links are only counted as left over (robots.txt not asked).
      for (const candidate of candidates.slice(0, this.plan.maxBreadth))
        this.found.overLimit.add(keyOf(candidate.url)!);
      return [];
    }
    if (this.ranker) candidates.sort((a, b) => b.score - a.score || a.order - b.order);
    const chosen: Candidate[] = [];
    for (const candidate of candidates) {
      if (chosen.length >= this.plan.maxBreadth) break;
      if (!(await this.site.allowedByRobots(candidate.url))) continue;
      claimed.add(keyOf(candidate.url)!);
      chosen.push(candidate);
    }
    return chosen;
  }

  /** A page's links that are new (unknown, not claimed), pass the filters and are no assets, in page order. */
  private candidatesOf(visit: PageVisit<P>, claimed: ReadonlySet<string>, noteAnchors: boolean): Candidate[] {
    const candidates: Candidate[] = [];
    const candidateKeys = new Set<string>();
    for (const link of visit.links) {
      const key = keyOf(link.url);
      if (!key) continue;
      const known = this.found.byKey.get(key);
      if (known) {
        if (noteAnchors && link.text && known.anchors.length < 10) known.anchors.push(link.text);
        continue;
      }
      if (claimed.has(key) || candidateKeys.has(key)) continue;
      const url = new URL(link.url);
      if (isAssetUrl(url) || !this.plan.filters.admits(url)) continue;
      const score = this.ranker ? this.ranker.linkScore(link.url, link.text, link.context) : 0;
      candidateKeys.add(key);
      candidates.push({ url: link.url, anchor: link.text, score, order: candidates.length });
    }
    return candidates;
  }

  /**
   * Why the run ended with pages left, if it did. Left: the pages beyond the limit (found and not taken, or, for a
   * ranked map, found and ranked below the `limit` best); at the deadline also the pages found and not visited (a
   * map lists those: they are not left) and those not yet read from visited pages' links (up to `max_breadth` each,
   * robots.txt not asked).
   */
  private stopReason(timedOut: boolean, ranked: readonly Entry<P>[]): FrontierStop | null {
    const left = new Set([...this.found.overLimit].filter((key) => !this.found.byKey.has(key)));
    for (const entry of ranked.slice(this.plan.limit)) left.add(entry.key);
    if (!timedOut) return left.size > 0 ? { by: 'limit', pagesLeft: left.size } : null;
    for (const entry of this.found.all) {
      if (entry.listed && entry.state === 'pending' && this.plan.mode === 'crawl') left.add(entry.key);
    }
    for (const entry of this.found.all) {
      if (entry.linksRead || entry.state !== 'visited' || !entry.visit || entry.depth >= this.plan.maxDepth) continue;
      if (entry.visit.noFollow) continue;
      const candidates = this.candidatesOf(entry.visit, left, false).slice(0, this.plan.maxBreadth);
      for (const candidate of candidates) left.add(keyOf(candidate.url)!);
    }
    return { by: 'timeout', pagesLeft: left.size };
  }

  private async addSitemapPages(urls: string[]): Promise<void> {
    for (const url of urls) {
      if (this.signal.aborted) return;
      const key = keyOf(url);
      if (!key || this.found.byKey.has(key) || this.found.landed.has(key) || this.found.overLimit.has(key)) continue;
      const parsed = new URL(url);
      if (isAssetUrl(parsed) || !this.plan.filters.admits(parsed)) continue;
      if (!this.found.hasRoom()) {
        // Past the limit: counted as left over (robots.txt not asked), not added.
        this.found.overLimit.add(key);
        continue;
      }
      if (!(await this.site.allowedByRobots(url))) continue;
      this.found.add(url, 1, [], true);
    }
  }

  /** Whether an entry is one of the results (before ranking and the limit). */
  private isResult(entry: Entry<P>): boolean {
    return (
      entry.listed &&
      ((entry.state === 'visited' && !entry.visit?.linksOnly) ||
        (entry.state === 'pending' && this.plan.mode === 'map')) &&
      (entry.depth === 0 || !isAssetUrl(new URL(entry.url)))
    );
  }

  /**
   * The results before the limit: in discovery order, or, with instructions, the relevant ones best first; with
   * categories, the pages of those kinds before the others.
   */
  private ranked(): Entry<P>[] {
    return categoriesFirst(this.relevant(), (entry) => entry.url, this.plan.categories ?? []);
  }

  private relevant(): Entry<P>[] {
    const kept = this.found.all.filter((entry) => this.isResult(entry));
    if (!this.ranker) return kept;
    const fields = new Map<string, RelevanceFields>();
    for (const entry of kept) {
      fields.set(entry.key, {
        path: pathOf(entry.url),
        anchors: entry.anchors,
        title: entry.visit?.title ?? null,
        summary: entry.visit?.summary ?? null,
        content: entry.visit?.content ?? null,
      });
    }
    const byKey = new Map(kept.map((entry) => [entry.key, entry]));
    return this.ranker.rank(fields).map((key) => byKey.get(key)!);
  }

  private results(ranked: Entry<P>[]): FrontierPage<P>[] {
    return ranked
      .slice(0, this.plan.limit)
      .map((entry) => ({ url: entry.url, depth: entry.depth, visit: entry.visit }));
  }
}
