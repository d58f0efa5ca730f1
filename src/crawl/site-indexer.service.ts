import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  CONTENT_EXTRACTOR,
  type ContentExtractor,
  ExtractError,
  type ExtractedPage,
} from '../extract/content-extractor.port.js';
import { ExtractionPool } from '../extract/extraction-pool.js';
import { FETCHER, type Fetcher, ROBOTS_POLICY, type RobotsPolicy } from '../fetch/fetcher.port.js';
import { HostScheduler } from '../fetch/host-scheduler.js';
import { CrawlFilters } from './crawl-filters.js';
import { DocumentIndexWriter } from '../documents/document-index.writer.js';
import { extractingVisitor } from './extracting-visitor.js';
import { Frontier, type PageVisitor } from './frontier/frontier.js';
import { IndexFeed } from './index-feed.js';

/** Links of one page followed: a site's index pages link to hundreds of pages, and every one should be indexed. */
const MAX_BREADTH = 1000;
const PAGE_TIMEOUT_MS = 20_000;
/** An operator's crawl is not bounded by a request's timeout; this only keeps a runaway one from running for ever. */
const MAX_RUN_MS = 6 * 3600_000;
const MIN_CONCURRENCY = 6;
const CONCURRENCY_PER_THREAD = 4;

export interface SiteIndexOptions {
  readonly maxDepth: number;
  readonly limit: number;
  /** Told after every page visit, done or failed. */
  readonly onProgress?: (progress: SiteIndexProgress) => void;
}

export interface SiteIndexProgress {
  /** Pages extracted so far. */
  readonly read: number;
  readonly failed: number;
}

export interface SiteIndexReport {
  /** Pages of the site found: visited (extracted or failed), or left beyond the limit. */
  readonly found: number;
  /** Pages written to the local search index. */
  readonly indexed: number;
  readonly failed: { url: string; error: string }[];
  /** Pages found but not visited: beyond the limit. */
  readonly left: number;
}

/**
 * `index <site> --crawl`: the crawl's frontier (robots.txt, per-host politeness, sitemaps when the site has them,
 * links otherwise), on the start URL's site only, every page extracted and written to the local search index. A
 * page that fails for a passing reason (a timeout, a dropped connection, a 5xx or 429) is tried once more.
 */
@Injectable()
export class SiteIndexer {
  private readonly logger = new Logger('SiteIndexer');
  private readonly frontier: Frontier;
  private readonly concurrency: number;

  constructor(
    @Inject(FETCHER) private readonly fetcher: Fetcher,
    @Inject(ROBOTS_POLICY) robots: RobotsPolicy,
    scheduler: HostScheduler,
    @Inject(CONTENT_EXTRACTOR) private readonly extractor: ContentExtractor,
    private readonly writer: DocumentIndexWriter,
    @Optional() @Inject(ExtractionPool) pool: ExtractionPool | null = null,
  ) {
    this.frontier = new Frontier(fetcher, robots, scheduler);
    this.concurrency = Math.max(MIN_CONCURRENCY, (pool?.threads ?? 0) * CONCURRENCY_PER_THREAD);
  }

  async index(startUrl: string, options: SiteIndexOptions): Promise<SiteIndexReport> {
    const extract = extractingVisitor(this.extractor, this.fetcher, {
      depth: 'basic',
      format: 'markdown',
      includeImages: true,
      includeFavicon: true,
    });
    const failed: SiteIndexReport['failed'] = [];
    let read = 0;
    let visits = 0;
    const visitor: PageVisitor<ExtractedPage | null> = async (url, context) => {
      visits++;
      try {
        const visit = await extract(url, context).catch((error: unknown) => {
          // An operator's crawl is after the whole site: a page that failed for a passing reason gets one more try.
          if (context.signal.aborted || !(error instanceof ExtractError && error.transient)) throw error;
          this.logger.debug(`${url}: ${error.message}; trying once more`);
          return extract(url, context);
        });
        if (visit?.payload) read++;
        else failed.push({ url, error: 'no content to extract (its links were followed)' });
        return visit;
      } catch (error) {
        failed.push({ url, error: error instanceof Error ? error.message || error.name : String(error) });
        throw error;
      } finally {
        options.onProgress?.({ read, failed: failed.length });
      }
    };
    const feed = new IndexFeed(this.writer, this.logger);
    const outcome = await this.frontier.run(
      {
        startUrl,
        maxDepth: options.maxDepth,
        maxBreadth: MAX_BREADTH,
        limit: options.limit,
        filters: new CrawlFilters(startUrl, { allowExternal: false }),
        ranker: null,
        deadline: Date.now() + MAX_RUN_MS,
        mode: 'crawl',
        concurrency: this.concurrency,
        pageTimeoutMs: PAGE_TIMEOUT_MS,
        onPage: (page) => {
          if (page.visit?.payload) feed.push(page.visit.payload as ExtractedPage);
        },
      },
      visitor,
    );
    const indexed = await feed.drain();
    const left = outcome.stop?.pagesLeft ?? 0;
    return { found: visits + left, indexed, failed, left };
  }
}
