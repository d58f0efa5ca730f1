import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';
import { trimEndChars } from '../common/linear-text.js';
import { emptyToUndefined, toBool, toInt, toNumber } from './env-variables.js';

/** Upstream engines, the page cache and reranking: docs/configuration.md, "Search". */
export class SearchVariables {
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(3650)
  SEARCH_RESULT_RETENTION_DAYS?: number;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true }, { message: 'SEARXNG_URL must be an absolute http(s) URL' })
  SEARXNG_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  BRAVE_API_KEY?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true }, { message: 'BRAVE_BASE_URL must be an absolute http(s) URL' })
  BRAVE_BASE_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  SERPAPI_API_KEY?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl(
    { require_tld: false, require_protocol: true },
    { message: 'SERPAPI_BASE_URL must be an absolute http(s) URL' },
  )
  SERPAPI_BASE_URL?: string;

  @Transform(toBool)
  @IsOptional()
  @IsBoolean()
  SERPAPI_WEB_SEARCH?: boolean;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(120000)
  UPSTREAM_TIMEOUT_MS?: number;

  /** Searches a node holds at once (answering or waiting for their turn); past it, a search is answered 503. */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100000)
  SEARCH_MAX_IN_FLIGHT?: number;

  /**
   * Searches a fresh node that reads the web holds at once before its answers have shown it can hold more (the
   * adaptive bound's start; at most SEARCH_MAX_IN_FLIGHT). Default: twice the bound's floor.
   */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100000)
  SEARCH_INITIAL_IN_FLIGHT?: number;

  /**
   * A search stops reading the rest of its pages once a page read answers the query this well on its own (its best
   * passage and its coverage of the query, in [0, 1]); 1 reads until the depth's deadline.
   */
  @Transform(toNumber)
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  SEARCH_READ_ENOUGH_STRENGTH?: number;

  /** How old a page in the local index may be and still stand for a fresh read (search and extract's max_age). */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(31536000)
  PAGE_CACHE_MAX_AGE_SECONDS?: number;

  /** Whether the pages search and extract read are written to the local index. */
  @Transform(toBool)
  @IsOptional()
  @IsBoolean()
  INDEX_READ_PAGES?: boolean;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true }, { message: 'RERANK_URL must be an absolute http(s) URL' })
  RERANK_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(['tei', 'cohere'], { message: "RERANK_FORMAT must be 'tei' or 'cohere'" })
  RERANK_FORMAT?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  RERANK_MODEL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  RERANK_API_KEY?: string;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(50)
  @Max(10000)
  RERANK_TIMEOUT_MS?: number;
}

export interface SearchConfig {
  /** Days the results a search showed are kept for feedback to name them by id (0: not kept). */
  readonly searchResultRetentionDays: number;
  /** A self-hosted SearXNG (`{searxngUrl}/search?format=json`); null: not asked. */
  readonly searxngUrl: string | null;
  /** Brave Search API subscription token; null: Brave is not asked. */
  readonly braveApiKey: string | null;
  readonly braveBaseUrl: string;
  /** SerpAPI key (or any server speaking its `/search.json` format); null: not asked. */
  readonly serpapiApiKey: string | null;
  readonly serpapiBaseUrl: string;
  /** Whether POST /search asks SerpAPI (engine google) too; verticals use SerpAPI whenever a key is set. */
  readonly serpapiWebSearch: boolean;
  /** Total time one upstream search call may take (connect, headers and body), in milliseconds. */
  readonly upstreamTimeoutMs: number;
  /** POST /search calls one node holds at once, queued or working; another is refused at once with 503. */
  readonly searchMaxInFlight: number;
  /** Where the adaptive bound starts on a node that reads the web; null: twice its floor. */
  readonly searchInitialInFlight: number | null;
  /** A search stops reading once a page read answers the query this well (EvidenceRanking.strength); 1: never. */
  readonly searchReadEnoughStrength: number;
  /**
   * Default freshness limit of the page cache: a page the local index holds that was fetched less than this many
   * seconds ago is served instead of fetched again (search and extract; a request's max_age overrides it).
   */
  readonly pageCacheMaxAgeSeconds: number;
  /** Whether pages read by search and extract are written to the local index (the page cache grows with use). */
  readonly indexReadPages: boolean;
  /** A rerank service for search results; null: the evidence ranking alone. */
  readonly rerank: RerankSettings | null;
}

/**
 * A rerank service: text-embeddings-inference (`POST {url}/rerank`) or the Cohere/Jina shape (`POST {url}/v1/rerank`);
 * a URL already ending in /rerank is used as it is.
 */
export interface RerankSettings {
  readonly url: string;
  readonly format: 'tei' | 'cohere';
  readonly model: string | null;
  readonly apiKey: string | null;
  readonly timeoutMs: number;
}

/** Chosen on bench:web by cross-validation over the two halves of the claims (docs/benchmarks.md). */
export const DEFAULT_READ_ENOUGH_STRENGTH = 0.45;

export function loadSearchConfig(vars: SearchVariables): SearchConfig {
  return {
    searchResultRetentionDays: vars.SEARCH_RESULT_RETENTION_DAYS ?? 30,
    searxngUrl: vars.SEARXNG_URL ? trimEndChars(vars.SEARXNG_URL, '/') : null,
    braveApiKey: vars.BRAVE_API_KEY ?? null,
    braveBaseUrl: trimEndChars(vars.BRAVE_BASE_URL ?? 'https://api.search.brave.com', '/'),
    serpapiApiKey: vars.SERPAPI_API_KEY ?? null,
    serpapiBaseUrl: trimEndChars(vars.SERPAPI_BASE_URL ?? 'https://serpapi.com', '/'),
    serpapiWebSearch: vars.SERPAPI_WEB_SEARCH ?? false,
    upstreamTimeoutMs: vars.UPSTREAM_TIMEOUT_MS ?? 10000,
    searchMaxInFlight: vars.SEARCH_MAX_IN_FLIGHT ?? 64,
    searchInitialInFlight: vars.SEARCH_INITIAL_IN_FLIGHT ?? null,
    searchReadEnoughStrength: vars.SEARCH_READ_ENOUGH_STRENGTH ?? DEFAULT_READ_ENOUGH_STRENGTH,
    pageCacheMaxAgeSeconds: vars.PAGE_CACHE_MAX_AGE_SECONDS ?? 86400,
    indexReadPages: vars.INDEX_READ_PAGES ?? true,
    rerank: rerankSettings(vars),
  };
}

function rerankSettings(vars: SearchVariables): RerankSettings | null {
  if (!vars.RERANK_URL) return null;
  const url = trimEndChars(vars.RERANK_URL, '/');
  const path = new URL(url).pathname;
  // Unset, the format follows the path: Cohere and Jina put their API under /v1.
  const format = (vars.RERANK_FORMAT ?? (/\/v1(\/rerank)?$/.test(path) ? 'cohere' : 'tei')) as RerankSettings['format'];
  return {
    url,
    format,
    model: vars.RERANK_MODEL ?? null,
    apiKey: vars.RERANK_API_KEY ?? null,
    timeoutMs: vars.RERANK_TIMEOUT_MS ?? 800,
  };
}
