import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { UsageDto } from '../../metering/dto/usage.dto.js';

/** Present when the run stopped before it had every page it found: the limit that stopped it, and how many were left. */
@ApiSchema({ name: 'CutShort' })
export class CutShortDto {
  /** `timeout`: the time ran out (the pages taken by then are returned); `limit`: `limit` pages were taken and more were found. */
  @ApiProperty({ enum: ['timeout', 'limit'] })
  by!: 'timeout' | 'limit';

  /** Pages found (linked within max_depth and max_breadth, or in a sitemap, and passing the filters) and not taken. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  pages_left!: number;
}

@ApiSchema({ name: 'MapResponse' })
export class MapResponseDto {
  /** The start URL, as given. */
  base_url!: string;

  /** The pages found, in discovery order (or by relevance with instructions). */
  results!: string[];

  cut_short?: CutShortDto;

  /** Seconds the call took. */
  response_time!: number;

  /** Identifies this request. */
  request_id!: string;

  usage?: UsageDto;
}

@ApiSchema({ name: 'CrawlResult' })
export class CrawlResultDto {
  /** The page URL. */
  url!: string;

  /** Its content (its most relevant passages with instructions). */
  raw_content!: string;

  /** Main images (with include_images), else empty. */
  images!: string[];

  /** The favicon URL (with include_favicon). */
  favicon?: string | null;
}

@ApiSchema({ name: 'CrawlResponse' })
export class CrawlResponseDto {
  /** The start URL, as given. */
  base_url!: string;

  /** The pages extracted. */
  results!: CrawlResultDto[];

  cut_short?: CutShortDto;

  /** Seconds the call took. */
  response_time!: number;

  /** Identifies this request. */
  request_id!: string;

  usage?: UsageDto;
}
