import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  MaxLength,
  Max,
  Min,
  Validate,
  type ValidationArguments,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { MAX_EXTRACT_URLS } from '../../metering/metered-operation.js';
import { MAX_AGE_LIMIT } from '../../page-cache/cached-page.js';

function firstInvalidUrl(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  for (const entry of value) {
    if (typeof entry !== 'string') return String(entry);
    try {
      const url = new URL(entry.trim());
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return entry;
    } catch {
      return entry;
    }
  }
  return null;
}

/** A non-empty array of absolute http(s) URLs; the message names the first one that is not. */
@ValidatorConstraint({ name: 'httpUrls' })
class HttpUrlList implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return Array.isArray(value) && value.length > 0 && firstInvalidUrl(value) === null;
  }

  defaultMessage(args: ValidationArguments): string {
    if (!Array.isArray(args.value)) return 'urls must be a URL or an array of URLs.';
    if (args.value.length === 0) return 'urls must name at least one URL.';
    return `Invalid URL: ${JSON.stringify(firstInvalidUrl(args.value))} is not an absolute http or https URL.`;
  }
}

/** POST /extract, as Tavily's clients send it (snake_case; `urls` may be a single string). */
@ApiSchema({ name: 'ExtractRequest' })
export class ExtractRequestDto {
  /**
   * The pages to read: absolute http(s) URLs, at most 20 (one URL may also be given as a string). PDFs give
   * their text; YouTube video URLs give the transcript.
   */
  @ApiProperty({
    anyOf: [
      { type: 'array', items: { type: 'string', format: 'uri' }, minItems: 1, maxItems: MAX_EXTRACT_URLS },
      { type: 'string', format: 'uri' },
    ],
  })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value))
  @Validate(HttpUrlList)
  urls!: string[];

  /**
   * 'basic' (default): the main text. 'advanced': also tables, figure captions and embedded media, and pages
   * built by JavaScript are rendered in a browser; costs twice as much.
   */
  @ApiPropertyOptional({ enum: ['basic', 'advanced'], default: 'basic' })
  @IsOptional()
  @IsIn(['basic', 'advanced'], { message: "extract_depth must be 'basic' or 'advanced'." })
  extract_depth?: 'basic' | 'advanced';

  /** Format of `raw_content`: 'markdown' (default) or plain 'text'. */
  @ApiPropertyOptional({ enum: ['markdown', 'text'], default: 'markdown' })
  @IsOptional()
  @IsIn(['markdown', 'text'], { message: "format must be 'markdown' or 'text'." })
  format?: 'markdown' | 'text';

  /** Also list each page's main images. Default false. */
  @IsOptional()
  @IsBoolean()
  include_images?: boolean;

  /** Add each page's favicon URL. Default false. */
  @IsOptional()
  @IsBoolean()
  include_favicon?: boolean;

  /** Add a `usage` object (credits charged and their breakdown) to the response. Default false. */
  @IsOptional()
  @IsBoolean()
  include_usage?: boolean;

  /** Seconds allowed per URL, 1 to 60. Default 30. */
  @ApiPropertyOptional({ default: 30 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'timeout must be a number of seconds.' })
  @Min(1, { message: 'timeout must be between 1 and 60 seconds.' })
  @Max(60, { message: 'timeout must be between 1 and 60 seconds.' })
  timeout?: number;

  /**
   * Return only the passages of each page most relevant to this question (chunks_per_source of them, joined by
   * [...]) instead of the whole page.
   */
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  query?: string;

  /** With query: how many passages per page, 1 to 5. Default 3. */
  @ApiPropertyOptional({ type: 'integer', default: 3 })
  @IsOptional()
  @IsInt({ message: 'chunks_per_source must be an integer from 1 to 5.' })
  @Min(1, { message: 'chunks_per_source must be an integer from 1 to 5.' })
  @Max(5, { message: 'chunks_per_source must be an integer from 1 to 5.' })
  chunks_per_source?: number;

  /**
   * Seconds a page read earlier (kept in the local index) stays good enough to stand for a fresh read of it, at
   * basic depth in markdown; older pages are fetched again. 0 always fetches. Default: the server's
   * PAGE_CACHE_MAX_AGE_SECONDS (86400).
   */
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_AGE_LIMIT })
  @IsOptional()
  @IsInt({ message: 'max_age must be a whole number of seconds.' })
  @Min(0, { message: `max_age must be between 0 and ${MAX_AGE_LIMIT} seconds.` })
  @Max(MAX_AGE_LIMIT, { message: `max_age must be between 0 and ${MAX_AGE_LIMIT} seconds.` })
  max_age?: number;
}
