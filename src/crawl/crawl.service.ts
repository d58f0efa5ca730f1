import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { relevantChunks } from '../extract/chunks/chunk-content.js';
import {
  CONTENT_EXTRACTOR,
  type ContentExtractor,
  type ExtractOptions,
  type ExtractedPage,
} from '../extract/content-extractor.port.js';
import { ExtractionPool } from '../extract/extraction-pool.js';
import { FETCHER, type Fetcher, ROBOTS_POLICY, type RobotsPolicy } from '../fetch/fetcher.port.js';
import { HostScheduler } from '../fetch/host-scheduler.js';
import { TargetScreen } from '../fetch/target-screen.js';
import type { WorkOutcome } from '../metering/pipeline/metering-pipeline.js';
import { PageCache } from '../page-cache/page-cache.js';
import { type CrawledPage, cachedVisit } from './cached-visit.js';
import type { CrawlResponseDto } from './dto/crawl-response.dto.js';
import { cutShort, resolveRequest, responseTime } from './crawl-request.js';
import { DocumentIndexWriter } from '../documents/document-index.writer.js';
import type { CrawlRequestDto } from './dto/crawl-request.dto.js';
import { Frontier, type PageCopies } from './frontier/frontier.js';
import { IndexFeed } from './index-feed.js';
import { extractingVisitor } from './extracting-visitor.js';
import { rejectFailedStart } from './start-failure.js';

const PAGE_TIMEOUT_MS = { basic: 15_000, advanced: 30_000 } as const;
const DEFAULT_CHUNKS_PER_SOURCE = 3;
/** Page cache lookups in a row that find nothing, after which a crawl reads its pages without asking the cache. */
const CACHE_MISSES_TO_STOP = 32;
/** Pages visited at once: at least this many, for the fetches' sake. */
const MIN_CONCURRENCY = 6;
/** Per extraction thread: one page extracted, one handed over, and two being fetched. */
const CONCURRENCY_PER_THREAD = 4;

/**
 * POST /crawl: map's frontier, with every page extracted (CONTENT_EXTRACTOR, HTML on the extraction pool's threads)
 * instead of only read for links. Pages that fail are left out and not billed. Every extracted page is written to
 * the local search index as the crawl goes. At basic depth in markdown the index is the crawl's page cache: a page
 * it holds with its links, read less than max_age ago, is taken from there instead of fetched (and billed as
 * crawled). A crawl cut short by its timeout or its limit says so (`cut_short`).
 */
@Injectable()
export class CrawlService {
  private readonly logger = new Logger('Crawl');
  private readonly frontier: Frontier;
  private readonly concurrency: number;

  constructor(
    @Inject(FETCHER) private readonly fetcher: Fetcher,
    @Inject(ROBOTS_POLICY) robots: RobotsPolicy,
    scheduler: HostScheduler,
    @Inject(CONTENT_EXTRACTOR) private readonly extractor: ContentExtractor,
    private readonly screen: TargetScreen,
    private readonly index: DocumentIndexWriter,
    private readonly cache: PageCache,
    @Optional() @Inject(ExtractionPool) pool: ExtractionPool | null = null,
  ) {
    this.frontier = new Frontier(fetcher, robots, scheduler);
    this.concurrency = Math.max(MIN_CONCURRENCY, (pool?.threads ?? 0) * CONCURRENCY_PER_THREAD);
  }

  async crawl(body: CrawlRequestDto): Promise<WorkOutcome<CrawlResponseDto>> {
    const startedAt = Date.now();
    const request = await resolveRequest(body, this.screen, startedAt);
    const depth = body.extract_depth ?? 'basic';
    // Whole pages, with images and favicon, are extracted for the index; the response gets query-focused chunks
    // (with instructions), and images and favicon only on request.
    const options: Omit<ExtractOptions, 'timeoutMs'> = {
      depth,
      format: body.format ?? 'markdown',
      includeImages: true,
      includeFavicon: true,
    };
    const visitor = extractingVisitor(this.extractor, this.fetcher, options);
    const feed = new IndexFeed(this.index, this.logger);
    const plan = {
      ...request.plan('crawl'),
      concurrency: this.concurrency,
      pageTimeoutMs: PAGE_TIMEOUT_MS[depth],
      onPage: (page: { visit: { payload: unknown; fromCache?: boolean } | null }) => {
        if (page.visit?.payload && !page.visit.fromCache) feed.push(page.visit.payload as ExtractedPage);
      },
    };
    const outcome = await this.frontier.run<CrawledPage | null>(plan, visitor, this.copiesFor(body));
    await feed.drain();
    if (outcome.pages.length === 0) rejectFailedStart(outcome.startError, request.startUrl, request.baseUrl);

    const pages = outcome.pages.flatMap((page) => (page.visit?.payload ? [page.visit.payload] : []));
    const instructions = request.instructions;
    const chunks = body.chunks_per_source ?? DEFAULT_CHUNKS_PER_SOURCE;
    const results = pages.map((page) => ({
      url: page.url,
      raw_content: instructions ? relevantChunks(page.rawContent, instructions, chunks) : page.rawContent,
      images: body.include_images ? [...page.images] : [],
      ...(body.include_favicon ? { favicon: page.favicon } : {}),
    }));
    return {
      body: {
        base_url: request.baseUrl,
        results,
        ...(outcome.stop ? { cut_short: cutShort(outcome.stop) } : {}),
        response_time: responseTime(startedAt),
      },
      counts: { pages: results.length, failed_urls: outcome.failed },
    };
  }

  /**
   * The page cache's copies younger than max_age, for a crawl that reads pages as the cache holds them. After
   * CACHE_MISSES_TO_STOP lookups in a row found nothing, the crawl stops asking: a site the cache does not hold is
   * read page by page, and on one embedded backend each lookup waited behind the index writes of the pages just read
   * (up to its 250 ms limit), longer than reading the page.
   */
  private copiesFor(body: CrawlRequestDto): PageCopies<CrawledPage> | undefined {
    if ((body.extract_depth ?? 'basic') !== 'basic' || (body.format ?? 'markdown') !== 'markdown') return undefined;
    const policy = this.cache.policyFor(body.max_age ?? undefined, false);
    if (policy.maxAgeSeconds === 0) return undefined;
    let misses = 0;
    return async (url) => {
      if (misses >= CACHE_MISSES_TO_STOP) return null;
      const page = await this.cache.copyWithLinks(url, policy);
      if (!page) {
        misses++;
        return null;
      }
      misses = 0;
      return cachedVisit(page);
    };
  }
}
