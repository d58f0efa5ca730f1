import type { Fetcher, RobotsPolicy } from '../../fetch/fetcher.port.js';
import type { HostScheduler } from '../../fetch/host-scheduler.js';
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
import { LinkDiscovery } from './link-discovery.js';
import { PageVisits } from './page-visits.js';
import { ranked, results, stopReason } from './results.js';
import { RunState } from './run-state.js';
import { Schedules } from './schedules.js';

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
export { MAX_DISCOVERED_PAGES } from './run-state.js';

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

  async run<P>(plan: FrontierPlan, visitor: PageVisitor<P>, copies?: PageCopies<P>): Promise<FrontierOutcome<P>> {
    const run = new RunState<P>(plan, this.fetcher, this.robots, this.scheduler);
    const visits = new PageVisits(run, visitor, copies ?? null);
    const discovery = new LinkDiscovery(run);
    const schedules = new Schedules(run, visits, discovery);
    const timer = setTimeout(
      () => run.controller.abort(new Error('the time budget is spent')),
      Math.max(0, plan.deadline - Date.now()),
    );
    try {
      const sitemapPages = run.site.sitemapPages(run.capacity * 2).catch(() => [] as string[]);
      const start = plan.startUrl;
      if (await run.site.allowedByRobots(start)) {
        run.found.add(start, 0, [], plan.filters.admits(new URL(start)));
      } else {
        run.startError = new StartDisallowedError(await run.site.disallowedBecause(start));
      }
      if (run.ranker) await schedules.runBestFirst(sitemapPages);
      else if (plan.mode === 'crawl') await schedules.runPipelined(sitemapPages);
      else await schedules.runByLevel(sitemapPages);
      const timedOut = run.signal.aborted;
      const best = ranked(run);
      return {
        pages: results(run, best),
        visited: run.visited,
        failed: run.failed,
        timedOut,
        stop: stopReason(run, discovery, timedOut, best),
        startError: run.startError,
      };
    } finally {
      clearTimeout(timer);
    }
  }
}
