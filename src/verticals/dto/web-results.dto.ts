import { ApiSchema } from '@nestjs/swagger';
import { VerticalRecord } from './vertical-record.dto.js';

@ApiSchema({ description: 'bing, duckduckgo, brave: web results of that engine.' })
export class WebResult extends VerticalRecord {
  /** Title. */
  title!: string;

  /** URL. */
  url!: string;

  /** Snippet. */
  snippet!: string | null;

  /** When the page was published, as an ISO 8601 instant. */
  published_date!: string | null;
}
