import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { FETCHER, type FetchedResource, FetchError, type Fetcher } from '../fetch/fetcher.port.js';
import { relevantChunks } from './chunks/chunk-content.js';
import {
  type ContentExtractor,
  ExtractError,
  type ExtractOptions,
  type ExtractedPage,
} from './content-extractor.port.js';
import { ExtractionPool } from './extraction-pool.js';
import { parseDocument } from './html/dom.js';
import { extractHtml } from './html/html-page.js';
import { looksJavaScriptBuilt } from './html/javascript-built.js';
import { PausableTimer } from './pausable-timer.js';
import { isPdf, pdfToText } from './pdf/pdf-text.js';
import { PAGE_RENDERER, type PageRenderer } from './render/page-renderer.js';
import { fetchYouTubeTranscript } from './youtube/youtube-transcript.js';
import { youTubeVideoId } from './youtube/youtube-url.js';

const ACCEPT =
  'text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,application/json;q=0.7,*/*;q=0.5';
const DEFAULT_CHUNKS = 3;

type Content = Omit<ExtractedPage, 'rawContent'> & { readonly content: string };

/**
 * The ContentExtractor: one URL in, its content out. YouTube video URLs give their transcript; everything else is
 * fetched (through the SSRF-safe fetcher) and read by type: HTML and XHTML (main content, metadata, structured
 * data, links; at advanced depth a JavaScript-built page is rendered in Chromium when one is configured, else
 * the static HTML is used), PDF (text), and plain text, JSON or XML as they are. With a query, the content is cut
 * down to its most relevant chunks. Every failure is an ExtractError whose message fits `failed_results`.
 */
@Injectable()
export class PageExtractor implements ContentExtractor {
  private readonly logger = new Logger('PageExtractor');

  constructor(
    @Inject(FETCHER) private readonly fetcher: Fetcher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(PAGE_RENDERER) private readonly renderer: PageRenderer | null = null,
    // HTML extraction on worker threads; without it (unit tests), inline.
    @Optional() @Inject(ExtractionPool) private readonly pool: ExtractionPool | null = null,
  ) {}

  async extract(url: string, options: ExtractOptions): Promise<ExtractedPage> {
    const controller = new AbortController();
    let timer: PausableTimer | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = new PausableTimer(options.timeoutMs, () => {
        controller.abort();
        reject(
          new ExtractError(`Failed to extract content: timed out after ${formatSeconds(options.timeoutMs)}`, url, true),
        );
      });
    });
    // The caller's signal (a crawl's deadline) stops the extraction too.
    const onCallerAbort = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) onCallerAbort();
    else options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      const page = await Promise.race([this.extractContent(url, options, controller.signal, timer!), deadline]);
      const { content, ...rest } = page;
      if (!content.trim()) throw new ExtractError('Failed to extract content: the page has no readable text', url);
      const query = options.query?.trim();
      const rawContent = query ? relevantChunks(content, query, options.chunksPerSource ?? DEFAULT_CHUNKS) : content;
      return {
        ...rest,
        rawContent,
        images: options.includeImages ? rest.images : [],
        favicon: options.includeFavicon ? rest.favicon : null,
      };
    } catch (error) {
      throw toExtractError(error, url);
    } finally {
      timer?.clear();
      options.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  private async extractContent(
    url: string,
    options: ExtractOptions,
    signal: AbortSignal,
    timer: PausableTimer,
  ): Promise<Content> {
    const videoId = youTubeVideoId(url);
    if (videoId) return this.youtube(url, videoId, options, signal);
    let started = Date.now();
    const remaining = () => Math.max(1, options.timeoutMs - (Date.now() - started));
    const request = () =>
      this.fetcher.fetch(url, {
        timeoutMs: remaining(),
        signal,
        accept: ACCEPT,
        ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
      });
    let resource: FetchedResource;
    if (options.politely) {
      // The time waiting for the host's turn is not the page's: its clock starts with the request.
      timer.pause();
      resource = await options.politely(() => {
        timer.resume();
        started = Date.now();
        return request();
      });
    } else {
      resource = await request();
    }
    if (isPdf(resource.body, resource.contentType)) return this.pdf(resource);
    if (isHtml(resource)) return this.html(resource, options, remaining, signal, timer);
    return this.plain(resource);
  }

  private async html(
    resource: FetchedResource,
    options: ExtractOptions,
    remaining: () => number,
    signal: AbortSignal,
    timer: PausableTimer,
  ): Promise<Content> {
    let html = resource.text();
    let url = resource.url;
    if (options.depth === 'advanced' && this.renderer && looksJavaScriptBuilt(parseDocument(html))) {
      try {
        const rendered = await this.renderer.render(url, html, { timeoutMs: remaining(), signal });
        html = rendered.html;
        url = rendered.url;
      } catch (error) {
        if (signal.aborted) throw error;
        // Rendering is an improvement, not a requirement: the static HTML is still an answer.
        this.logger.warn(`rendering ${url} failed, using the static HTML: ${(error as Error).message}`);
      }
    }
    const htmlOptions = { depth: options.depth, format: options.format } as const;
    // The time the page waits for a thread of the pool is not counted against its timeout.
    const queue = { waiting: () => timer.pause(), turn: () => timer.resume() };
    const page = this.pool
      ? await this.pool.extract(html, url, htmlOptions, signal, queue)
      : extractHtml(html, url, htmlOptions);
    return {
      url,
      title: page.title,
      content: page.content,
      images: page.images,
      favicon: page.favicon,
      publishedDate: page.publishedDate,
      language: page.language,
      structuredData: page.structuredData,
      links: page.links,
      noFollow: page.noFollow,
      contentType: resource.contentType,
    };
  }

  private async pdf(resource: FetchedResource): Promise<Content> {
    let pdf: Awaited<ReturnType<typeof pdfToText>>;
    try {
      pdf = await pdfToText(resource.body);
    } catch (error) {
      throw new ExtractError(
        `Failed to extract content: the PDF could not be read (${(error as Error).message})`,
        resource.requestedUrl,
      );
    }
    if (!pdf.text)
      throw new ExtractError('Failed to extract content: the PDF has no text layer', resource.requestedUrl);
    return {
      url: resource.url,
      title: pdf.title,
      content: pdf.text,
      images: [],
      // A PDF or a text file declares no icon.
      favicon: null,
      publishedDate: null,
      language: pdf.language,
      structuredData: [],
      links: [],
      contentType: 'application/pdf',
    };
  }

  private plain(resource: FetchedResource): Content {
    return {
      url: resource.url,
      title: null,
      content: resource.text().trim(),
      images: [],
      // A PDF or a text file declares no icon.
      favicon: null,
      publishedDate: null,
      language: null,
      structuredData: [],
      links: [],
      contentType: resource.contentType,
    };
  }

  private async youtube(url: string, videoId: string, options: ExtractOptions, signal: AbortSignal): Promise<Content> {
    const video = await fetchYouTubeTranscript(this.fetcher, this.config.youtubeBaseUrl, videoId, url, {
      timeoutMs: options.timeoutMs,
      signal,
    });
    return {
      url: video.watchUrl,
      title: video.title,
      content: video.transcript,
      images: video.thumbnail ? [video.thumbnail] : [],
      favicon: 'https://www.youtube.com/favicon.ico',
      publishedDate: null,
      language: video.language,
      structuredData: [],
      links: [],
      contentType: 'text/html',
    };
  }
}

function isHtml(resource: FetchedResource): boolean {
  if (resource.contentType === 'text/html' || resource.contentType === 'application/xhtml+xml') return true;
  // XHTML served as XML.
  return /xml$/.test(resource.contentType) && /<html[\s>]/i.test(resource.body.subarray(0, 4096).toString('latin1'));
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function isTransient(error: FetchError): boolean {
  if (error.code === 'timeout' || error.code === 'connection_failed') return true;
  return error.code === 'http_error' && error.status !== undefined && (error.status >= 500 || error.status === 429);
}

function toExtractError(error: unknown, url: string): ExtractError {
  if (error instanceof ExtractError) return error;
  if (error instanceof FetchError) return new ExtractError(error.message, url, isTransient(error));
  const message = error instanceof Error ? error.message : String(error);
  return new ExtractError(`Failed to extract content: ${message}`, url);
}
