import type { ExtractedPage } from '../documents/extracted-page.js';

/** Turning one URL into the content an API result carries. */
export interface ExtractOptions {
  readonly depth: 'basic' | 'advanced';
  readonly format: 'markdown' | 'text';
  readonly includeImages: boolean;
  readonly includeFavicon: boolean;
  /** With `query`, raw_content is the `chunksPerSource` most relevant chunks instead of the whole page. */
  readonly query?: string;
  readonly chunksPerSource?: number;
  readonly timeoutMs: number;
  /** Largest decompressed body fetched (the fetcher's default, 10 MiB, when absent). */
  readonly maxBytes?: number;
  /** Stops the extraction early (a crawl's deadline); it then rejects. */
  readonly signal?: AbortSignal;
  /**
   * Runs the page's request (a crawl's per-host politeness); the extraction after it runs outside. The time waiting
   * for it is not counted against `timeoutMs`.
   */
  readonly politely?: <T>(request: () => Promise<T>) => Promise<T>;
}

// The page an extraction gives is declared in src/documents/ (the page cache and the index writer, below extract/,
// store it); extract/ and its users keep naming it from here.
export type { ExtractedPage, PageLinkText } from '../documents/extracted-page.js';

export class ExtractError extends Error {
  constructor(
    message: string,
    readonly url: string,
    /** The same request may succeed later: a timeout, a dropped connection, a 5xx or 429 answer. */
    readonly transient = false,
  ) {
    super(message);
    this.name = 'ExtractError';
  }
}

export interface ContentExtractor {
  extract(url: string, options: ExtractOptions): Promise<ExtractedPage>;
}

export const CONTENT_EXTRACTOR = Symbol('CONTENT_EXTRACTOR');
