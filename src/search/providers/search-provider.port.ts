/**
 * Where search results come from. POST /search asks every configured provider (the local index always; upstream
 * APIs such as SearXNG or Brave when configured) and merges their hits by canonical URL; with upstreams, the hits are
 * read and ranked as one list (read/read-and-rank.ts).
 *
 * Adding a provider: implement SearchProvider, and add it to the SEARCH_PROVIDERS factory of SearchModule. A provider
 * that fails throws (an upstream a BadGatewayException), never returns an empty list: the search then answers with
 * the other providers' hits, or, when none has any, fails with that 502 and the metering pipeline bills nothing
 * (provider-lists.ts).
 */

export type SearchTopic = 'general' | 'news' | 'finance';

/** A search as providers receive it: validated, defaults applied, time filters resolved to instants. */
export interface ProviderSearchRequest {
  /** The query as the caller wrote it (trimmed). */
  readonly query: string;
  readonly depth: 'basic' | 'advanced';
  /** How many hits to return at most (the response may show fewer). */
  readonly maxResults: number;
  readonly topic: SearchTopic;
  /** Inclusive lower and exclusive upper bound on the publication date (or, for `general`, the fetch date). */
  readonly from: Date | null;
  readonly to: Date | null;
  /** Domain patterns as the caller wrote them: `example.com`, `*.com`, `example.com/blog`. */
  readonly includeDomains: readonly string[];
  readonly excludeDomains: readonly string[];
  /** exact_match: every hit must contain each of these phrases (the query's quoted parts). */
  readonly requiredPhrases: readonly string[];
  /** Passages per hit in `content` (1–3; the local index: at every depth, Brave: at advanced). */
  readonly chunksPerSource: number;
  /** Lower-case country name (`topic: general` only), or null. */
  readonly country: string | null;
  /**
   * Lower-case primary language subtag (`en`, `de`), or null: pages known to be in another language are left out.
   * With `languageStrict`, pages of unknown language too.
   */
  readonly language: string | null;
  readonly languageStrict: boolean;
  readonly signal?: AbortSignal;
}

export interface HitImage {
  readonly url: string;
  /** A short description of the image when the provider has or can derive one. */
  readonly description: string | null;
}

/** One result, normalized: what every provider returns. */
export interface SearchHit {
  /** Canonical URL (the merge key). */
  readonly url: string;
  readonly title: string;
  /** A snippet, or the best passages joined with " [...] " (chunksPerSource of them). */
  readonly content: string;
  /** Relevance in [0, 1], comparable across the hits of one provider. */
  readonly score: number;
  /** The whole page as markdown when the provider has it; null otherwise. */
  readonly rawContent: string | null;
  readonly publishedDate: Date | null;
  readonly favicon: string | null;
  readonly images: readonly HitImage[];
  /** The provider's name, e.g. `local`. */
  readonly provider: string;
}

export interface SearchProvider {
  readonly name: string;
  search(request: ProviderSearchRequest): Promise<SearchHit[]>;
}

/** The providers POST /search asks, in order of preference for ties (`SearchProvider[]`). */
export const SEARCH_PROVIDERS = Symbol('SEARCH_PROVIDERS');
