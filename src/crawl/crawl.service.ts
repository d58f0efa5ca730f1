import { Inject, Injectable, Logger } from '@nestjs/common';
import { relevantChunks } from '../extract/chunks/chunk-content.js';
import {
  CONTENT_EXTRACTOR,
  type ContentExtractor,
  type ExtractOptions,
  type ExtractedPage,
} from '../extract/content-extractor.port.js';
import { AddressPolicy } from '../fetch/address-policy.js';
import { FETCHER, type Fetcher, ROBOTS_POLICY, type RobotsPolicy } from '../fetch/fetcher.port.js';
import { HostScheduler } from '../fetch/host-scheduler.js';
import type { WorkOutcome } from '../metering/metering-pipeline.js';
import { resolveRequest, responseTime } from './crawl-request.js';
import { DocumentIndexWriter } from './document-index.writer.js';
import type { CrawlRequestDto } from './dto/crawl-request.dto.js';
import { Frontier, type PageVisitor } from './frontier.js';
import { linkVisitor } from './link-visitor.js';
import { normalizeUrl } from './normalize-url.js';
import { rejectRefusedStart } from './start-failure.js';

const PAGE_TIMEOUT_MS = { basic: 15_000, advanced: 30_000 } as const;
const DEFAULT_CHUNKS_PER_SOURCE = 3;
/** Extraction is CPU work: fewer pages at once than map fetches. */
const CONCURRENCY = 6;

/**
 * POST /crawl: map's frontier, with every page extracted (CONTENT_EXTRACTOR) instead of only read for links. Pages
 * that fail are left out and not billed. Every extracted page is written to the local search index.
 */
@Injectable()
export class CrawlService {
  private readonly logger = new Logger('Crawl');
  private readonly frontier: Frontier;

  constructor(
    @Inject(FETCHER) private readonly fetcher: Fetcher,
    @Inject(ROBOTS_POLICY) robots: RobotsPolicy,
    scheduler: HostScheduler,
    @Inject(CONTENT_EXTRACTOR) private readonly extractor: ContentExtractor,
    private readonly addresses: AddressPolicy,
    private readonly index: DocumentIndexWriter,
  ) {
    this.frontier = new Frontier(fetcher, robots, scheduler);
  }

  async crawl(body: CrawlRequestDto): Promise<WorkOutcome> {
    const startedAt = Date.now();
    const request = resolveRequest(body, this.addresses, startedAt);
    const depth = body.extract_depth ?? 'basic';
    // Whole pages, with images and favicon, are extracted for the index; the response gets query-focused chunks
    // (with instructions), and images and favicon only on request.
    const options: Omit<ExtractOptions, 'timeoutMs'> = {
      depth,
      format: body.format ?? 'markdown',
      includeImages: true,
      includeFavicon: true,
    };
    const readLinks = linkVisitor(this.fetcher);
    const visitor: PageVisitor<ExtractedPage | null> = async (url, context) => {
      let page: ExtractedPage;
      try {
        page = await this.extractor.extract(url, { ...options, timeoutMs: context.timeoutMs });
      } catch (error) {
        // A page with too little text to extract (a list of links, say) still leads somewhere: read its links.
        if (!context.followLinks || context.signal.aborted || !isContentFailure(error)) throw error;
        const links = await readLinks(url, context).catch(() => Promise.reject(error));
        return links && { ...links, linksOnly: true };
      }
      return {
        url: page.url,
        links: page.links.flatMap((link) => {
          const normalized = normalizeUrl(link);
          return normalized ? [{ url: normalized, text: '' }] : [];
        }),
        title: page.title,
        content: page.rawContent,
        payload: page,
      };
    };
    const plan = { ...request.plan('crawl'), concurrency: CONCURRENCY, pageTimeoutMs: PAGE_TIMEOUT_MS[depth] };
    const outcome = await this.frontier.run(plan, visitor);
    if (outcome.pages.length === 0) rejectRefusedStart(outcome.startError);

    const pages = outcome.pages.flatMap((page) => (page.visit?.payload ? [page.visit.payload] : []));
    await this.addToIndex(pages);
    const instructions = request.instructions;
    const chunks = body.chunks_per_source ?? DEFAULT_CHUNKS_PER_SOURCE;
    const results = pages.map((page) => ({
      url: page.url,
      raw_content: instructions ? relevantChunks(page.rawContent, instructions, chunks) : page.rawContent,
      images: body.include_images ? [...page.images] : [],
      ...(body.include_favicon ? { favicon: page.favicon } : {}),
    }));
    return {
      body: { base_url: request.baseUrl, results, response_time: responseTime(startedAt) },
      counts: { pages: results.length, failed_urls: outcome.failed },
    };
  }

  private async addToIndex(pages: readonly ExtractedPage[]): Promise<void> {
    const fetchedAt = new Date();
    const documents = pages.flatMap((page) => DocumentIndexWriter.fromPage(page, fetchedAt) ?? []);
    try {
      await this.index.upsert(documents);
    } catch (error) {
      // The index is a by-product: a crawl the caller asked for is served even when it cannot be recorded.
      this.logger.warn(`indexing ${documents.length} crawled pages failed: ${(error as Error).message}`);
    }
  }
}

/**
 * An extraction that failed on the content (too little text, an unreadable document), not on the fetch (HTTP error,
 * refused address) or the clock: the page is there, and its links are worth a cheap second read.
 */
function isContentFailure(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return message.startsWith('Failed to extract content:') && !/timed out/i.test(message);
}
