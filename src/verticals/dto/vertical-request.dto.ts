import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

export const VERTICAL_TIME_RANGES = ['day', 'week', 'month', 'year', 'd', 'w', 'm', 'y'] as const;
export const LISTING_TYPES = ['sale', 'rent'] as const;
export const MAX_VERTICAL_QUERY_LENGTH = 400;

/**
 * The body of POST /search/{vertical}. Options a vertical does not use are ignored; unknown fields are dropped by the
 * validation pipe, and `api_key` was taken out by the metering pipeline before.
 *
 * - `query`: required, except for youtube_transcript, which also takes the video as `url` (a video URL or id);
 * - `max_results`: 1–20, default 10;
 * - `country`: a country name (`united states`) or ISO code (`us`): products, amazon, places, jobs, news, images,
 *   scholar, patents, trends, bing, duckduckgo, brave (passed to the upstreams that localize);
 * - `language`: a language code (`en`, `de`, `pt-BR`): news, images, bing, duckduckgo, brave, youtube_transcript
 *   (the caption language wanted);
 * - `location`: a place name: places, jobs, realestate (local results must be there; upstreams search there);
 * - `time_range`: day | week | month | year (d, w, m, y): news, bing, duckduckgo, brave (published since), trends
 *   (the span of the curve, default year);
 * - `listing_type`: sale | rent: realestate;
 * - `include_usage`: the `usage` object in the response.
 */
export class VerticalRequestDto {
  @IsOptional()
  @IsString()
  @MaxLength(MAX_VERTICAL_QUERY_LENGTH, { message: `query must be at most ${MAX_VERTICAL_QUERY_LENGTH} characters` })
  @Matches(/\S/, { message: 'query must not be empty' })
  query?: string;

  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(20)
  max_results?: number;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  country?: string;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$/, {
    message: 'language must be a language code such as en or pt-BR',
  })
  language?: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(/\S/, { message: 'location must not be empty' })
  location?: string;

  @IsOptional()
  @IsIn(VERTICAL_TIME_RANGES)
  time_range?: (typeof VERTICAL_TIME_RANGES)[number];

  @IsOptional()
  @IsIn(LISTING_TYPES)
  listing_type?: (typeof LISTING_TYPES)[number];

  @IsOptional()
  @IsBoolean()
  include_usage?: boolean;
}
