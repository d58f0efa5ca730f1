import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsCalendarDate } from '../../http/dto/calendar-date.js';
import { MAX_AGE_LIMIT } from '../../page-cache/cached-page.js';
import { DomainList, MAX_EXCLUDE_DOMAINS, MAX_INCLUDE_DOMAINS } from './domain-list.js';

export const SEARCH_DEPTHS = ['basic', 'advanced', 'fast', 'ultra-fast'] as const;
export const TOPICS = ['general', 'news', 'finance'] as const;
export const TIME_RANGES = ['day', 'week', 'month', 'year', 'd', 'w', 'm', 'y'] as const;
export const DOMAIN_MODES = ['restrict', 'prefer'] as const;
/** A language as ISO 639-1 (or 639-3) writes it, optionally with a region: `en`, `de`, `pt-BR`. */
export const LANGUAGE_TAG = /^[a-z]{2,3}(?:[-_][a-z0-9]{2,8})?$/i;
/** The longest max_hours a request may give: ten years. */
export const MAX_HOURS_LIMIT = 87_600;
export const MAX_QUERY_LENGTH = 400;

/**
 * POST /search, as Tavily's clients send it (shared/spec/compat-reference.md §1). Unknown fields are dropped by the
 * validation pipe; `api_key` was taken out by the metering pipeline before.
 */
@ApiSchema({ name: 'SearchRequest' })
export class SearchRequestDto {
  /**
   * What to search for, in natural language or keywords (at most 400 characters). Put phrases that must appear
   * verbatim in "double quotes" and set exact_match.
   */
  @ApiProperty({
    minLength: 1,
    maxLength: MAX_QUERY_LENGTH,
    example: 'Which countries have banned single-use plastic bags?',
  })
  @IsString()
  @MaxLength(MAX_QUERY_LENGTH, { message: `query must be at most ${MAX_QUERY_LENGTH} characters` })
  @Matches(/\S/, { message: 'query must not be empty' })
  query!: string;

  /**
   * 'basic' (default, 1 credit): `content` joins each page's chunks_per_source most relevant passages. 'advanced'
   * (2 credits): passages are reranked too; best for precise questions. With an upstream search
   * engine, the depth also says how much of the web is read: 'ultra-fast' (1 credit) shows the engine's snippets,
   * 'fast' (1 credit) reads its top 8 pages within 0.3 s, 'basic' its top 12 within 0.55 s, 'advanced' its top 20
   * within 1.3 s.
   */
  @ApiPropertyOptional({ enum: SEARCH_DEPTHS, default: 'basic' })
  @IsOptional()
  @IsIn(SEARCH_DEPTHS)
  search_depth?: (typeof SEARCH_DEPTHS)[number];

  /** How many results to return, 0 to 20. Default 5. */
  @ApiPropertyOptional({ type: 'integer', default: 5 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(20)
  max_results?: number;

  /**
   * 'general' (default); 'news': only dated pages, newest weighted, each result with `published_date` (combine
   * with time_range, days or start_date/end_date); 'finance': financial pages.
   */
  @ApiPropertyOptional({ enum: TOPICS, default: 'general' })
  @IsOptional()
  @IsIn(TOPICS)
  topic?: (typeof TOPICS)[number];

  /**
   * Only pages published within the last day, week, month or year (d, w, m, y are short forms). Ignored when
   * start_date or end_date is given.
   */
  @ApiPropertyOptional({ enum: TIME_RANGES })
  @IsOptional()
  @IsIn(TIME_RANGES)
  time_range?: (typeof TIME_RANGES)[number];

  /** Legacy: with topic news, only pages published within this many days back. */
  @ApiPropertyOptional({ type: 'integer' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(36500)
  days?: number;

  /** Only pages published on or after this day (YYYY-MM-DD). Wins over time_range. */
  @ApiPropertyOptional({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', example: '2026-01-01' })
  @IsOptional()
  @IsCalendarDate()
  start_date?: string;

  /** Only pages published on or before this day (YYYY-MM-DD). Wins over time_range. */
  @ApiPropertyOptional({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', example: '2026-06-30' })
  @IsOptional()
  @IsCalendarDate()
  end_date?: string;

  /**
   * Only return results from these sites (at most 300): a domain (example.com, which includes its subdomains),
   * a wildcard (*.gov) or a path prefix (example.com/blog).
   */
  @DomainList(MAX_INCLUDE_DOMAINS)
  include_domains?: string[];

  /**
   * Never return results from these sites (at most 150): a domain, a wildcard (*.example.com) or a path prefix.
   */
  @DomainList(MAX_EXCLUDE_DOMAINS)
  exclude_domains?: string[];

  /**
   * How include_domains applies: 'restrict' (default) returns results from those sites only; 'prefer' returns
   * results from any site and ranks those from the listed sites higher.
   */
  @ApiPropertyOptional({ enum: DOMAIN_MODES, default: 'restrict' })
  @IsOptional()
  @IsIn(DOMAIN_MODES, { message: `include_domains_mode must be one of: ${DOMAIN_MODES.join(', ')}` })
  include_domains_mode?: (typeof DOMAIN_MODES)[number];

  /**
   * Results in this language (an ISO 639-1 code such as 'en', 'de' or 'pt-BR'): pages known to be in another
   * language are left out, and upstream engines are asked for this language. With filter_by_language, pages whose
   * language is unknown are left out too.
   */
  @ApiPropertyOptional({ example: 'en' })
  @IsOptional()
  @IsString({ message: "language must be a language code such as 'en' or 'pt-BR'" })
  @Matches(LANGUAGE_TAG, { message: "language must be a language code such as 'en' or 'pt-BR'" })
  language?: string;

  /** With language: only pages known to be in that language. Default false. */
  @IsOptional()
  @IsBoolean()
  filter_by_language?: boolean;

  /** Only pages published (or, undated, fetched) within this many hours back. Wins over time_range and days. */
  @ApiPropertyOptional({ type: Number, minimum: 0.001, maximum: MAX_HOURS_LIMIT })
  @IsOptional()
  // Checked bottom-up.
  @Max(MAX_HOURS_LIMIT, { message: `max_hours must be at most ${MAX_HOURS_LIMIT}` })
  @Min(0.001, { message: 'max_hours must be more than 0' })
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'max_hours must be a number of hours' })
  max_hours?: number;

  /**
   * Also return each result's whole page content as `raw_content`: true or 'markdown' for markdown, 'text' for
   * plain text. Default false.
   */
  @ApiPropertyOptional({ anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['markdown', 'text'] }], default: false })
  @IsOptional()
  @IsIn([true, false, 'markdown', 'text'])
  include_raw_content?: boolean | 'markdown' | 'text';

  /** Also return images: a top-level `images` list and `images` per result. Default false. */
  @IsOptional()
  @IsBoolean()
  include_images?: boolean;

  /** With include_images: images as {url, description} objects instead of plain URLs. Default false. */
  @IsOptional()
  @IsBoolean()
  include_image_descriptions?: boolean;

  /** Add each result's favicon URL. Default false. */
  @IsOptional()
  @IsBoolean()
  include_favicon?: boolean;

  /**
   * How many of a page's most relevant passages (each at most 500 characters) `content` joins with " [...] ", 1 to 3.
   * Default 3 at 'fast', 'basic' and 'advanced', 1 at 'ultra-fast'. An engine's snippet (a page not read) is shown
   * as it is.
   */
  @ApiPropertyOptional({ type: 'integer', default: 3 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3)
  chunks_per_source?: number;

  /**
   * Prefer results from this country's sites (a country name such as 'united states' or 'germany'; topic
   * general only).
   */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  country?: string;

  /**
   * Also write an answer to the query from the results: true or 'basic' for 1 to 3 sentences (+1 credit),
   * 'advanced' for a longer one of up to 6 sentences (+2 credits). The surcharge is charged only when an answer is
   * returned (`answer` null: none). Default false.
   */
  @ApiPropertyOptional({
    anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['basic', 'advanced'] }],
    default: false,
  })
  @IsOptional()
  @IsIn([true, false, 'basic', 'advanced'])
  include_answer?: boolean | 'basic' | 'advanced';

  /**
   * Let the service choose topic and time_range from the query's wording; explicit values win. Default false.
   */
  @IsOptional()
  @IsBoolean()
  auto_parameters?: boolean;

  /** Only return pages that contain every "quoted phrase" of the query. Default false. */
  @IsOptional()
  @IsBoolean()
  exact_match?: boolean;

  /** Add a `usage` object (credits charged and their breakdown) to the response. Default false. */
  @IsOptional()
  @IsBoolean()
  include_usage?: boolean;

  /**
   * Seconds a page read earlier (kept in the local index) stays good enough to stand for a fresh read of it; older
   * pages are fetched again. 0 always fetches. Default: the server's PAGE_CACHE_MAX_AGE_SECONDS (86400).
   */
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_AGE_LIMIT })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_AGE_LIMIT)
  max_age?: number;

  /**
   * Seconds the pages may take to read, at most the depth's own deadline (which it can only shorten); 0 reads
   * nothing new (pages known to the cache, and the engines' snippets).
   */
  @ApiPropertyOptional({ minimum: 0, maximum: 60 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(60)
  fetch_timeout?: number;

  /** When a page cannot be read in time, show an older copy of it from the cache (if any). Default false. */
  @IsOptional()
  @IsBoolean()
  cache_fallback?: boolean;
}
