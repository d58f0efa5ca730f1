/**
 * The one way the service touches the web. Every fetch is checked against the SSRF rules on the resolved address of
 * every hop, bounded in time and size, and decoded; failures are FetchErrors with a code and a message fit for a
 * `failed_results` entry.
 */
export interface FetchOptions {
  /** Total time for the whole fetch, redirects included (default 15 s). */
  readonly timeoutMs?: number;
  /** Largest decompressed body accepted (default 10 MiB). */
  readonly maxBytes?: number;
  /** Default 5. */
  readonly maxRedirects?: number;
  readonly accept?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

export interface FetchedResource {
  readonly requestedUrl: string;
  /** The final URL, after redirects. */
  readonly url: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The media type, lower-case, without parameters (e.g. `text/html`). */
  readonly contentType: string;
  /** The detected character set (header, BOM, meta tag, or sniffed); null for binary content. */
  readonly charset: string | null;
  /** The decompressed body. */
  readonly body: Buffer;
  readonly redirects: readonly string[];
  /** The body decoded with `charset` (UTF-8 when unknown). */
  text(): string;
}

export type FetchErrorCode =
  | 'invalid_url'
  | 'blocked_address'
  | 'dns_failure'
  | 'timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'http_error'
  | 'unsupported_content_type'
  | 'connection_failed'
  | 'robots_disallowed';

export class FetchError extends Error {
  constructor(
    readonly code: FetchErrorCode,
    message: string,
    readonly url: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

export interface Fetcher {
  fetch(url: string, options?: FetchOptions): Promise<FetchedResource>;
}

export const FETCHER = Symbol('FETCHER');

/** robots.txt, cached per origin; used by map and crawl (extract of a URL the caller names does not consult it). */
export interface RobotsPolicy {
  isAllowed(url: string): Promise<boolean>;
  /** Why a URL is not allowed (its robots.txt disallows it, or could not be read), or null when it is allowed. */
  disallowedBecause(url: string): Promise<string | null>;
  /** Sitemap URLs the origin's robots.txt lists. */
  sitemaps(origin: string): Promise<string[]>;
  /** Crawl-delay for our user agent, in milliseconds, if the site sets one. */
  crawlDelayMs(origin: string): Promise<number | null>;
}

export const ROBOTS_POLICY = Symbol('ROBOTS_POLICY');
