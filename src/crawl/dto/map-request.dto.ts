import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { MAX_AGE_LIMIT } from '../../page-cache/cached-page.js';
import { PAGE_CATEGORIES, type PageCategory } from '../page-categories.js';
import { IsUrlPatterns } from './url-patterns.constraint.js';

export const DEFAULTS = { maxDepth: 1, maxBreadth: 20, limit: 50, timeoutSeconds: 150 } as const;

const PATTERNS: ApiPropertyOptions = { type: [String], maxItems: 50, nullable: true };

/**
 * POST /map (compat-reference.md §3). Unknown fields, and the ones clients send that map has no use for
 * (`include_images`, `query`), are accepted and ignored. `limit` above MAX_PAGES_PER_CALL is served as
 * MAX_PAGES_PER_CALL.
 */
@ApiSchema({ name: 'MapRequest' })
export class MapRequestDto {
  /** Where to start: a URL, or a bare domain (https:// is assumed). */
  @ApiProperty({ minLength: 1 })
  // Checked bottom-up: the first failing check is the one reported.
  @MaxLength(2048)
  @IsNotEmpty({ message: 'url is required: no starting url provided' })
  @IsString({ message: 'url is required: no starting url provided' })
  url!: string;

  /**
   * What to look for, in natural language: the most promising pages are visited first (a map fetches its last level
   * too, to read their headings), up to 3 × limit pages are looked at, and the most relevant returned, best first.
   * Map then costs 2 credits per 10 pages; crawl returns each page's chunks_per_source most relevant passages.
   */
  @IsOptional() @IsString() @MaxLength(2000) instructions?: string | null;

  /** How many links away from the start page to go, 1 to 5. Default 1. */
  @ApiPropertyOptional({ type: 'integer', nullable: true, default: DEFAULTS.maxDepth })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(5)
  max_depth?: number | null;

  /** Links followed per page, 1 to 500. Default 20. */
  @ApiPropertyOptional({ type: 'integer', nullable: true, default: DEFAULTS.maxBreadth })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(500)
  max_breadth?: number | null;

  /** Most pages returned. Default 50; above the per-call maximum it is served as that maximum. */
  @ApiPropertyOptional({ type: 'integer', nullable: true, default: DEFAULTS.limit })
  @IsOptional()
  @IsInt()
  @Min(1)
  limit?: number | null;

  /** Only pages whose path matches one of these regular expressions (RE2, at most 200 characters), e.g. /docs/.* */
  @ApiPropertyOptional(PATTERNS)
  @IsOptional()
  @IsUrlPatterns()
  select_paths?: string[] | null;

  /** Only pages whose host matches one of these regular expressions, e.g. ^docs\.example\.com$ */
  @ApiPropertyOptional(PATTERNS)
  @IsOptional()
  @IsUrlPatterns()
  select_domains?: string[] | null;

  /** Leave out pages whose path matches one of these regular expressions. */
  @ApiPropertyOptional(PATTERNS)
  @IsOptional()
  @IsUrlPatterns()
  exclude_paths?: string[] | null;

  /** Leave out pages whose host matches one of these regular expressions. */
  @ApiPropertyOptional(PATTERNS)
  @IsOptional()
  @IsUrlPatterns()
  exclude_domains?: string[] | null;

  /**
   * Pages of these kinds first, told by their path (Documentation: /docs/, /guides/, /reference/…; Blog: /blog/,
   * /news/…; see docs/extraction.md): they rank the results and never leave a page out.
   */
  @ApiPropertyOptional({ type: 'array', items: { type: 'string', enum: [...PAGE_CATEGORIES] }, nullable: true })
  @IsOptional()
  // Checked bottom-up.
  @IsIn(PAGE_CATEGORIES, { each: true, message: `categories must be among: ${PAGE_CATEGORIES.join(', ')}` })
  @ArrayMaxSize(PAGE_CATEGORIES.length)
  @IsArray({ message: `categories must be an array of: ${PAGE_CATEGORIES.join(', ')}` })
  categories?: PageCategory[] | null;

  /** Whether links to other sites may be in the results. Default true. */
  @ApiPropertyOptional({ type: Boolean, nullable: true, default: true })
  @IsOptional()
  @IsBoolean()
  allow_external?: boolean | null;

  /** Seconds for the whole call, 10 to 150 (default 150): what was found by then is returned. */
  @ApiPropertyOptional({ type: Number, nullable: true, default: DEFAULTS.timeoutSeconds })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(10)
  @Max(150)
  timeout?: number | null;

  /** Add a `usage` object (credits charged and their breakdown) to the response. Default false. */
  @IsOptional() @IsBoolean() include_usage?: boolean;

  /**
   * Seconds a page read earlier (kept in the local index with its links) stays good enough to stand for a fresh read
   * of it: crawl at basic depth in markdown, map without instructions; older pages are fetched again. 0 always
   * fetches. Default: the server's PAGE_CACHE_MAX_AGE_SECONDS (86400).
   */
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_AGE_LIMIT, nullable: true })
  @IsOptional()
  @IsInt({ message: 'max_age must be a whole number of seconds.' })
  @Min(0, { message: `max_age must be between 0 and ${MAX_AGE_LIMIT} seconds.` })
  @Max(MAX_AGE_LIMIT, { message: `max_age must be between 0 and ${MAX_AGE_LIMIT} seconds.` })
  max_age?: number | null;
}
