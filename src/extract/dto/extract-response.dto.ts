import { ApiSchema } from '@nestjs/swagger';
import { UsageDto } from '../../metering/dto/usage.dto.js';

@ApiSchema({ name: 'ExtractResult' })
export class ExtractResultDto {
  /** The URL, as requested. */
  url!: string;

  /** Title of the page. */
  title?: string | null;

  /** The content of the page (or its most relevant passages with query). */
  raw_content!: string;

  /** Main images (with include_images), else empty. */
  images!: string[];

  /** The favicon URL (with include_favicon). */
  favicon?: string | null;
}

@ApiSchema({ name: 'FailedResult' })
export class FailedResultDto {
  /** The URL. */
  url!: string;

  /** Why it failed. */
  error!: string;
}

@ApiSchema({ name: 'ExtractResponse' })
export class ExtractResponseDto {
  /** The pages extracted. */
  results!: ExtractResultDto[];

  /** The URLs that could not be extracted (not billed). */
  failed_results!: FailedResultDto[];

  /** Seconds the extraction took. */
  response_time!: number;

  /** Identifies this request. */
  request_id!: string;

  usage?: UsageDto;
}
