import { BadRequestException, Inject, Injectable } from '@nestjs/common';
import { TargetScreen } from '../fetch/target-screen.js';
import { errorBody } from '../http/error-body.js';
import { MAX_EXTRACT_URLS } from '../metering/metered-operation.js';
import type { WorkOutcome } from '../metering/pipeline/metering-pipeline.js';
import { PageCache } from '../page-cache/page-cache.js';
import type { CachedPage } from '../page-cache/cached-page.js';
import { relevantChunks } from './chunks/chunk-content.js';
import type { ExtractResponseDto, ExtractResultDto } from './dto/extract-response.dto.js';
import {
  CONTENT_EXTRACTOR,
  type ContentExtractor,
  ExtractError,
  type ExtractOptions,
  type ExtractedPage,
} from './content-extractor.port.js';
import type { ExtractRequestDto } from './dto/extract-request.dto.js';

/** URLs extracted at the same time within one request. */
export const EXTRACT_CONCURRENCY = 5;
/** Per-URL total time when the request gives no `timeout`. */
export const DEFAULT_TIMEOUT_SECONDS = 30;
const DEFAULT_CHUNKS_PER_SOURCE = 3;

type Outcome = { page: Shown } | { error: string };

/** A page as a result shows it: the complete page (read or cached) cut to what the request asked for. */
interface Shown {
  readonly title: string | null;
  readonly rawContent: string;
  readonly images: readonly string[];
  readonly favicon: string | null;
}

/**
 * POST /extract: the named URLs (de-duplicated) extracted five at a time, each within the request's timeout;
 * successes in `results`, failures in `failed_results` (free). A URL the SSRF rules refuse (an IP literal, a name they
 * refuse, or a name resolving to a refused address) is not fetched and fails on its own, in `failed_results` with the
 * reason; only a request whose every URL is refused is a 400. A name that does not resolve is a page that cannot be
 * read, in `failed_results` as any other. At basic
 * depth in markdown (the pages search reads), the page cache serves a copy younger than max_age instead of fetching
 * it, and every page read goes to it.
 */
@Injectable()
export class ExtractService {
  constructor(
    @Inject(CONTENT_EXTRACTOR) private readonly extractor: ContentExtractor,
    private readonly screen: TargetScreen,
    private readonly cache: PageCache,
  ) {}

  async extract(request: ExtractRequestDto): Promise<WorkOutcome<ExtractResponseDto>> {
    const started = performance.now();
    const urls = [...new Set(request.urls.map((url) => url.trim()))];
    if (request.urls.length > MAX_EXTRACT_URLS) throw badRequest(`Max ${MAX_EXTRACT_URLS} URLs are allowed.`);
    // A refused URL fails on its own, with the reason; only when every URL is refused is there nothing to extract,
    // and the request is the caller's error.
    const refusals = await this.refusals(urls);
    if (refusals.size === urls.length) {
      const [url, reason] = refusals.entries().next().value!;
      throw badRequest(`${reason}: ${url}`);
    }
    const options: ExtractOptions = {
      depth: request.extract_depth ?? 'basic',
      format: request.format ?? 'markdown',
      includeImages: request.include_images === true,
      includeFavicon: request.include_favicon === true,
      query: request.query?.trim() || undefined,
      chunksPerSource: request.chunks_per_source ?? DEFAULT_CHUNKS_PER_SOURCE,
      timeoutMs: Math.round((request.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000),
    };
    const cacheable = options.depth === 'basic' && options.format === 'markdown';
    const { fresh } = cacheable
      ? await this.cache.lookup(urls, this.cache.policyFor(request.max_age, false))
      : { fresh: new Map<string, CachedPage>() };
    const outcomes = await mapWithConcurrency(urls, EXTRACT_CONCURRENCY, (url): Promise<Outcome> => {
      const refused = refusals.get(url);
      if (refused) return Promise.resolve({ error: refused });
      const cached = fresh.get(url);
      if (cached) return Promise.resolve({ page: shown(cached.title, cached.markdown, cached, options) });
      return cacheable ? this.extractThroughCache(url, options) : this.extractOne(url, options);
    });
    const results: ExtractResultDto[] = [];
    const failed: { url: string; error: string }[] = [];
    urls.forEach((url, i) => {
      const outcome = outcomes[i]!;
      if ('error' in outcome) failed.push({ url, error: outcome.error });
      else results.push(toResult(url, outcome.page, options));
    });
    return {
      body: {
        results,
        failed_results: failed,
        response_time: Math.round(performance.now() - started) / 1000,
      },
      counts: { successful_urls: results.length, failed_urls: failed.length },
    };
  }

  /** The refused URLs with their reasons (names resolved at once, each bounded by the screen's wait). */
  private async refusals(urls: readonly string[]): Promise<Map<string, string>> {
    const verdicts = await Promise.all(urls.map((url) => this.screen.judge(new URL(url))));
    return new Map(
      urls.flatMap((url, i) => {
        const verdict = verdicts[i]!;
        return verdict.kind === 'refused' ? [[url, verdict.refusal.message] as const] : [];
      }),
    );
  }

  private async extractOne(url: string, options: ExtractOptions): Promise<{ page: ExtractedPage } | { error: string }> {
    try {
      return { page: await this.extractor.extract(url, options) };
    } catch (error) {
      return { error: error instanceof ExtractError ? error.message : 'Failed to extract content' };
    }
  }

  /** The complete page (images, favicon, no query) is read, remembered by the cache, then cut to the request. */
  private async extractThroughCache(url: string, options: ExtractOptions): Promise<Outcome> {
    const complete = { ...options, includeImages: true, includeFavicon: true, query: undefined };
    const outcome = await this.extractOne(url, complete);
    if ('error' in outcome) return outcome;
    this.cache.remember(outcome.page);
    return { page: shown(outcome.page.title, outcome.page.rawContent, outcome.page, options) };
  }
}

/** A complete page (markdown) as the request asks for it: its query's passages, its images and favicon or none. */
function shown(
  title: string | null,
  markdown: string,
  page: { readonly images: readonly string[]; readonly favicon: string | null },
  options: ExtractOptions,
): Shown {
  return {
    title,
    rawContent: options.query
      ? relevantChunks(markdown, options.query, options.chunksPerSource ?? DEFAULT_CHUNKS_PER_SOURCE)
      : markdown,
    images: options.includeImages ? page.images : [],
    favicon: options.includeFavicon ? page.favicon : null,
  };
}

function toResult(url: string, page: Shown, options: ExtractOptions): ExtractResultDto {
  const item: ExtractResultDto = {
    url,
    title: page.title,
    raw_content: page.rawContent,
    images: options.includeImages ? [...page.images] : [],
  };
  if (options.includeFavicon) item.favicon = page.favicon;
  return item;
}

function badRequest(message: string): BadRequestException {
  return new BadRequestException(errorBody(message));
}

/** `work` over `items` with at most `limit` running at once; results in the items' order. */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
