import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiSchema,
  type SchemaObject,
  getSchemaPath,
} from '@nestjs/swagger';
import { UsageDto } from '../../metering/dto/usage.dto.js';

/** An image with include_image_descriptions. */
@ApiSchema({ name: 'DescribedImage' })
export class DescribedImageDto {
  /** The image URL. */
  url!: string;

  /** What the image shows. */
  description?: string;
}

const IMAGE: SchemaObject = {
  description: 'An image URL, or {url, description} with include_image_descriptions.',
  anyOf: [{ type: 'string' }, { $ref: getSchemaPath(DescribedImageDto) }],
};

@ApiSchema({ name: 'SearchResult' })
@ApiExtraModels(DescribedImageDto)
export class SearchResultDto {
  /**
   * Identifies this result: the request_id and the result's position (`<request_id>-04`). POST /feedback takes it
   * in `used_ids` and `urls_scores[].id`.
   */
  id!: string;

  /** Title of the page. */
  title!: string;

  /** URL of the page. */
  url!: string;

  /**
   * The page's chunks_per_source passages most relevant to the query (default 3; 1 at 'fast' and 'ultra-fast'), the
   * best first, joined by " [...] "; an engine's snippet as it is for a page not read.
   */
  content!: string;

  /** Relevance from 0 to 1. */
  @ApiProperty({ minimum: 0, maximum: 1 })
  score!: number;

  /** The whole page content with include_raw_content, else null. */
  raw_content!: string | null;

  /**
   * With upstream providers configured: where `content` comes from. 'page': the page, read for this search;
   * 'index': the local index's copy (for an engine's hit: read earlier and younger than max_age, or older with
   * cache_fallback); 'snippet': the engine's snippet (the page was not read, or not in time: its raw_content is
   * null).
   */
  @ApiPropertyOptional({ enum: ['page', 'index', 'snippet'] })
  content_source?: 'page' | 'index' | 'snippet';

  /** The favicon URL (with include_favicon). */
  favicon?: string | null;

  /** When the page was published (topic news), as an HTTP date. */
  published_date?: string | null;

  /** Images of the page (with include_images). */
  @ApiPropertyOptional({ type: 'array', items: IMAGE })
  images?: (string | DescribedImageDto)[];
}

@ApiSchema({ name: 'SearchResponse' })
@ApiExtraModels(DescribedImageDto)
export class SearchResponseDto {
  /** The query, as sent. */
  query!: string;

  /** The answer (with include_answer), else null. */
  answer!: string | null;

  /** Images of the results (with include_images), else empty. */
  @ApiProperty({ type: 'array', items: IMAGE })
  images!: (string | DescribedImageDto)[];

  /** The results, best first. */
  results!: SearchResultDto[];

  /** Always null (kept for older clients). */
  @ApiPropertyOptional({ type: 'null' })
  follow_up_questions?: null;

  /** With auto_parameters: the values chosen (topic, search_depth, time_range, …). */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  auto_parameters?: Record<string, unknown>;

  /** Seconds the search took. */
  response_time!: number;

  /** Identifies this request (also in the ledger and the x-request-id header). */
  request_id!: string;

  usage?: UsageDto;
}
