import { Inject, Injectable } from '@nestjs/common';
import { CONTENT_EXTRACTOR, type ContentExtractor } from '../../extract/content-extractor.port.js';
import { ROBOTS_POLICY, type RobotsPolicy } from '../../fetch/fetcher.port.js';
import { PageCache } from '../../page-cache/page-cache.js';
import type { PageReader, ReadPage } from './page-reader.port.js';
import { LateReadTimeout } from './late-reads.js';
import { untilAborted } from '../../common/until-aborted.js';

/** Longest a page read may take when the caller's signal would allow more (the search deadlines are far shorter). */
const MAX_READ_MS = 15_000;
/** A search reads many pages at once: a page larger than this is left to its snippet. */
const MAX_PAGE_BYTES = 3 * 1024 * 1024;

export class RobotsRefusal extends Error {
  constructor(readonly url: string) {
    super('robots.txt disallows reading this page');
    this.name = 'RobotsRefusal';
  }
}

/**
 * Reads a page as /extract does (the SSRF-safe fetcher: every hop's resolved address checked, redirects and size
 * bounded; HTML extracted on the worker pool), at basic extraction depth (no rendering), after robots.txt allows
 * it: an engine's URL is untrusted input and the reading is automatic. The caller's signal bounds the whole read,
 * the wait for a pool thread included. Every page read goes to the page cache (the local index), behind the answer.
 */
@Injectable()
export class ExtractingPageReader implements PageReader {
  constructor(
    @Inject(CONTENT_EXTRACTOR) private readonly extractor: ContentExtractor,
    @Inject(ROBOTS_POLICY) private readonly robots: RobotsPolicy,
    private readonly cache: PageCache,
  ) {}

  async read(url: string, signal: AbortSignal): Promise<ReadPage> {
    try {
      return await this.readAllowed(url, signal);
    } catch (error) {
      // A failure of the page's own (not the search's deadline): not worth waiting for again for a while.
      if (!signal.aborted || signal.reason instanceof LateReadTimeout) this.cache.rememberFailure(url);
      throw error;
    }
  }

  /** Asks for the robots.txt of these pages' origins now (cached per origin), ahead of their reads. */
  prepare(urls: readonly string[]): void {
    const origins = new Map<string, string>();
    for (const url of urls) {
      const origin = originOf(url);
      if (origin && origin !== 'null' && !origins.has(origin)) origins.set(origin, url);
    }
    for (const url of origins.values()) this.robots.isAllowed(url).catch(() => {});
  }

  private async readAllowed(url: string, signal: AbortSignal): Promise<ReadPage> {
    // The robots.txt fetch goes on (and is cached) past a deadline; the page read does not wait for it.
    if (!(await untilAborted(this.robots.isAllowed(url), signal))) throw new RobotsRefusal(url);
    return this.extract(url, signal);
  }

  private async extract(url: string, signal: AbortSignal): Promise<ReadPage> {
    const page = await this.extractor.extract(url, {
      depth: 'basic',
      format: 'markdown',
      includeImages: true,
      includeFavicon: true,
      timeoutMs: MAX_READ_MS,
      maxBytes: MAX_PAGE_BYTES,
      signal,
    });
    this.cache.remember(page);
    const published = page.publishedDate ? new Date(page.publishedDate) : null;
    return {
      url: page.url,
      title: page.title,
      markdown: page.rawContent,
      publishedDate: published && !Number.isNaN(published.getTime()) ? published : null,
      favicon: page.favicon,
      images: page.images,
    };
  }
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
