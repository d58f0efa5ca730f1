import { keyOf } from '../../documents/normalize-url.js';
import { LinkQueue } from '../link-queue.js';
import { isAssetUrl } from '../url-kinds.js';
import type { Entry } from './frontier-entries.js';
import type { LinkDiscovery } from './link-discovery.js';
import type { PageVisits } from './page-visits.js';
import { DEFAULT_CONCURRENCY, type RunState } from './run-state.js';

/** A link's priority adds the relevance of the page that links to it at this weight (its own link score at 1). */
const PARENT_WEIGHT = 0.5;

/** The three orders a run visits its pages in: level by level, best first (with instructions), pipelined (crawl). */
export class Schedules<P> {
  constructor(
    private readonly run: RunState<P>,
    private readonly visits: PageVisits<P>,
    private readonly discovery: LinkDiscovery<P>,
  ) {}

  /** Level by level (a map without instructions): every page of a level visited, then the next level found from them. */
  async runByLevel(sitemapPages: Promise<string[]>): Promise<void> {
    for (let depth = 0; depth <= this.run.plan.maxDepth && !this.run.signal.aborted; depth++) {
      const level = this.run.found.all.filter((entry) => entry.depth === depth);
      const visitLevel =
        this.run.plan.mode === 'crawl' || (depth < this.run.plan.maxDepth && (depth === 0 || this.run.found.hasRoom()));
      if (visitLevel) await this.visits.visitAll(level);
      if (depth >= this.run.plan.maxDepth || this.run.signal.aborted) continue;
      await this.discovery.discoverFrom(level, depth + 1);
      if (depth === 0) await this.discovery.addSitemapPages(await sitemapPages);
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
  async runBestFirst(sitemapPages: Promise<string[]>): Promise<void> {
    const queue = new LinkQueue();
    const claimed = new Set<string>();
    const concurrency = Math.max(1, this.run.plan.concurrency ?? DEFAULT_CONCURRENCY);
    let wave = [...this.run.found.all];
    let sitemapsRead = false;
    for (;;) {
      await this.visits.visitAll(wave);
      if (this.run.signal.aborted) break;
      for (const parent of wave) await this.queueLinksOf(parent, queue, claimed);
      if (!sitemapsRead && this.run.plan.maxDepth >= 1) {
        sitemapsRead = true;
        await this.queueSitemapPages(
          await Promise.race([sitemapPages, this.run.aborted.then(() => [])]),
          queue,
          claimed,
        );
      }
      wave = [];
      while (wave.length < concurrency && this.run.found.hasRoom() && !this.run.signal.aborted) {
        const link = queue.take();
        if (!link) break;
        if (this.run.found.isKnown(link.key)) continue;
        wave.push(this.run.found.add(link.url, link.depth, link.anchors, true));
      }
      if (wave.length === 0 || this.run.signal.aborted) break;
    }
    for (const link of queue.takeAll()) {
      if (this.run.found.isKnown(link.key)) continue;
      if (this.run.plan.mode === 'map' && this.run.signal.aborted && this.run.found.hasRoom())
        this.run.found.add(link.url, link.depth, link.anchors, true);
      else this.run.found.overLimit.add(link.key);
    }
  }
  /** Queues a visited page's links (up to `max_breadth` new ones, as `linksOf` chooses them), and its links to pages already queued again. */
  private async queueLinksOf(parent: Entry<P>, queue: LinkQueue, claimed: Set<string>): Promise<void> {
    const ranker = this.run.ranker!;
    if (parent.depth >= this.run.plan.maxDepth || !parent.visit) return;
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
    for (const candidate of await this.discovery.linksOf(parent, claimed)) {
      const key = keyOf(candidate.url)!;
      queue.offer({ url: candidate.url, key, depth, priority: candidate.score + inherited, anchor: candidate.anchor });
    }
  }
  /** Queues the sitemap pages at depth 1, by how well their URL matches the instructions. */
  private async queueSitemapPages(urls: string[], queue: LinkQueue, claimed: Set<string>): Promise<void> {
    for (const url of urls) {
      if (this.run.signal.aborted) return;
      const key = keyOf(url);
      if (!key || this.run.found.byKey.has(key) || this.run.found.landed.has(key) || claimed.has(key)) continue;
      const parsed = new URL(url);
      if (isAssetUrl(parsed) || !this.run.plan.filters.admits(parsed)) continue;
      if (!(await this.run.site.allowedByRobots(url))) continue;
      claimed.add(key);
      queue.offer({ url, key, depth: 1, priority: this.run.ranker!.linkScore(url, ''), anchor: '' });
    }
  }
  /**
   * Visits and discovery at once: `concurrency` workers visit the pages in the order they were found (breadth-first),
   * while discovery reads the visited pages' links in that same order, each page as soon as its visit is over.
   */
  async runPipelined(sitemapPages: Promise<string[]>): Promise<void> {
    let discovering = true;
    let next = 0;
    const worker = async () => {
      for (;;) {
        if (this.run.signal.aborted) return;
        if (next < this.run.found.all.length) {
          const entry = this.run.found.all[next++]!;
          try {
            await this.visits.visit(entry);
          } finally {
            entry.settle();
          }
          continue;
        }
        if (!discovering) return;
        await new Promise<void>((resolve) => this.run.wakers.push(resolve));
      }
    };
    const discovery = async () => {
      try {
        for (let depth = 0; depth < this.run.plan.maxDepth && !this.run.signal.aborted; depth++) {
          // Complete: the discovery of this level (and the sitemap pages, at depth 1) is over.
          const level = this.run.found.all.filter((entry) => entry.depth === depth);
          const claimed = new Set<string>();
          for (const parent of level) {
            await Promise.race([parent.settled, this.run.aborted]);
            if (this.run.signal.aborted) return;
            for (const candidate of await this.discovery.linksOf(parent, claimed))
              this.run.found.take(candidate, depth + 1);
          }
          if (depth === 0)
            await this.discovery.addSitemapPages(await Promise.race([sitemapPages, this.run.aborted.then(() => [])]));
        }
      } finally {
        discovering = false;
        this.run.wake();
      }
    };
    const workers = Math.max(1, this.run.plan.concurrency ?? DEFAULT_CONCURRENCY);
    await Promise.all([discovery(), ...Array.from({ length: workers }, worker)]);
  }
}
