import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

export const VERTICAL_TIME_RANGES = ['day', 'week', 'month', 'year', 'd', 'w', 'm', 'y'] as const;
export const LISTING_TYPES = ['sale', 'rent'] as const;
export const MAX_VERTICAL_QUERY_LENGTH = 400;
export const DEFAULT_VERTICAL_MAX_RESULTS = 10;

/**
 * The body of POST /search/{vertical}. Options a vertical does not use are ignored; unknown fields are dropped by the
 * validation pipe, and `api_key` was taken out by the metering pipeline before.
 */
@ApiSchema({ name: 'VerticalRequest' })
export class VerticalRequestDto {
  /** What to search for (required, except for youtube_transcript, which may name the video in `url` instead). */
  @ApiPropertyOptional({ minLength: 1, maxLength: MAX_VERTICAL_QUERY_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_VERTICAL_QUERY_LENGTH, { message: `query must be at most ${MAX_VERTICAL_QUERY_LENGTH} characters` })
  @Matches(/\S/, { message: 'query must not be empty' })
  query?: string;

  /** youtube_transcript: the video, as a URL or a video id. */
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  /** How many results, 1 to 20. Default 10. */
  @ApiPropertyOptional({ type: 'integer', default: DEFAULT_VERTICAL_MAX_RESULTS })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(20)
  max_results?: number;

  /**
   * A country name ('united states') or ISO code ('us'): products, amazon, places, jobs, news, images, scholar,
   * patents, trends, bing, duckduckgo, brave (passed to the upstreams that localize).
   */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  country?: string;

  /**
   * A language code (en, de, pt-BR): news, images, bing, duckduckgo, brave, youtube_transcript (the caption language
   * wanted).
   */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$/, {
    message: 'language must be a language code such as en or pt-BR',
  })
  language?: string;

  /** A place name: places, jobs, realestate (local results must be there; upstreams search there). */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(/\S/, { message: 'location must not be empty' })
  location?: string;

  /**
   * news, bing, duckduckgo, brave: published within (day, week, month, year; d, w, m, y for short); trends: the span
   * of the curve (default year).
   */
  @ApiPropertyOptional({ enum: VERTICAL_TIME_RANGES })
  @IsOptional()
  @IsIn(VERTICAL_TIME_RANGES)
  time_range?: (typeof VERTICAL_TIME_RANGES)[number];

  /** realestate: for sale or for rent. */
  @ApiPropertyOptional({ enum: LISTING_TYPES })
  @IsOptional()
  @IsIn(LISTING_TYPES)
  listing_type?: (typeof LISTING_TYPES)[number];

  /** Add a `usage` object to the response. Default false. */
  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  include_usage?: boolean;
}
