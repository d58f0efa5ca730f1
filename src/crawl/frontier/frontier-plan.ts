import type { CrawlFilters } from '../crawl-filters.js';
import type { PageLink } from '../html-outline.js';
import type { PageCategory } from '../page-categories.js';
import type { RelevanceRanker } from '../relevance.js';

/** What a frontier run is asked to do (see Frontier for how it does it). */
export interface FrontierPlan {
  /** Normalized start URL. */
  readonly startUrl: string;
  readonly maxDepth: number;
  readonly maxBreadth: number;
  readonly limit: number;
  readonly filters: CrawlFilters;
  /** With the request's instructions: guides the run (best-first) and ranks and filters the results; else null. */
  readonly ranker: RelevanceRanker | null;
  /** The results of these kinds first (page-categories.ts); they filter nothing. */
  readonly categories?: readonly PageCategory[];
  /** `Date.now()` after which nothing new starts. */
  readonly deadline: number;
  readonly mode: 'map' | 'crawl';
  /** Pages visited at once by this run (the HostScheduler also caps each host). Default 8. */
  readonly concurrency?: number;
  /** Time for one page visit. Default 15 s (less when the deadline is nearer). */
  readonly pageTimeoutMs?: number;
  /** Called as each page that can be a result is visited (a crawl indexes its pages as they come). */
  readonly onPage?: (page: FrontierPage<unknown>) => void;
}

export interface PageVisit<P> {
  /** Where the page was found in the end (after redirects). */
  readonly url: string;
  readonly links: readonly PageLink[];
  /** The page asks robots not to follow its links. */
  readonly noFollow?: boolean;
  readonly title?: string | null;
  readonly summary?: string | null;
  readonly content?: string | null;
  /** The page was read for its links only (its content could not be had): followed, but never a result. */
  readonly linksOnly?: boolean;
  /** Taken from the page cache (the local index), not fetched. */
  readonly fromCache?: boolean;
  readonly payload: P;
}

export interface VisitContext {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** Whether the page's links will be followed (it is above the last level). */
  readonly followLinks: boolean;
  /**
   * Runs the page's request under the run's politeness at its host (slots, crawl-delay). A visitor puts only its
   * fetch in it, so that the host's slot is free again while the page is extracted: a big page's extraction must not
   * keep the next pages from being fetched.
   */
  readonly politely: <T>(request: () => Promise<T>) => Promise<T>;
}

/** Fetches (or extracts) one page. Resolves null, or rejects, when the page cannot be had. */
export type PageVisitor<P> = (url: string, context: VisitContext) => Promise<PageVisit<P> | null>;

/**
 * A copy of a page that stands for its visit (the page cache), asked before the page is fetched: null (or a rejection)
 * visits the page. A copy costs no fetch, so it does not wait for the host's turn or its crawl-delay.
 */
export type PageCopies<P> = (url: string) => Promise<PageVisit<P> | null>;

export interface FrontierPage<P> {
  readonly url: string;
  readonly depth: number;
  /** Null for a page a map listed without fetching it. */
  readonly visit: PageVisit<P> | null;
}

/** Why a run ended before it had every page it found: the limit that stopped it, and what was left. */
export interface FrontierStop {
  /** `timeout`: the deadline came first; `limit`: the page limit was reached while more pages were found. */
  readonly by: 'timeout' | 'limit';
  /**
   * Distinct pages found (linked from a visited page within max_depth and max_breadth, or listed in a sitemap, and
   * passing the filters) that were not visited: waiting at the deadline, not yet read from a visited page's links,
   * or beyond the limit.
   */
  readonly pagesLeft: number;
}

export interface FrontierOutcome<P> {
  readonly pages: FrontierPage<P>[];
  readonly visited: number;
  readonly failed: number;
  readonly timedOut: boolean;
  /** Null when the run found nothing more than it visited (within max_depth). */
  readonly stop: FrontierStop | null;
  /** Why the start page could not be visited (what the visitor threw), if it could not. */
  readonly startError: unknown;
}
