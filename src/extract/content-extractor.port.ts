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

/** A link of a page: its absolute URL (no fragment) and its anchor texts (joined by ` | `; may be empty). */
export interface PageLinkText {
  readonly url: string;
  readonly text: string;
}

export interface ExtractedPage {
  /** The final URL of the page (after redirects). */
  readonly url: string;
  readonly title: string | null;
  readonly rawContent: string;
  /** Absolute URLs of the page's main images. */
  readonly images: readonly string[];
  readonly favicon: string | null;
  readonly publishedDate: string | null;
  readonly language: string | null;
  /** schema.org JSON-LD / microdata items, OpenGraph and citation meta tags, as found. */
  readonly structuredData: readonly Record<string, unknown>[];
  /** Outgoing links of the page, for map and crawl. */
  readonly links: readonly PageLinkText[];
  /** The page asks robots not to follow its links (`<meta name="robots" content="nofollow">`, or `none`). */
  readonly noFollow?: boolean;
  readonly contentType: string;
}

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
