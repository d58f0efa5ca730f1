import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { KeyActivityFilterDto, toInteger } from '../../keys/dto/key-activity-filter.dto.js';
import { IsCalendarDate } from '../../http/dto/calendar-date.js';
import { REQUEST_ID, REQUEST_ID_MESSAGE } from '../../http/request-id.js';

export const LOGGED_OPERATIONS = ['search', 'vertical', 'extract', 'map', 'crawl', 'research', 'mcp', 'usage'] as const;
export type LoggedOperation = (typeof LOGGED_OPERATIONS)[number];

const LIMIT_MESSAGE = 'limit must be an integer from 1 to 500';
const STATUS_MESSAGE = 'status must be an HTTP status (e.g. 429) or a class: 2xx, 4xx or 5xx';
const CURSOR_MESSAGE = 'cursor must be the next_cursor of a previous page';

/** Filters of the request log; every one optional. */
export class RequestLogQueryDto extends KeyActivityFilterDto {
  /** An HTTP status (`429`) or a class of them (`2xx`, `4xx`, `5xx`). */
  @IsOptional()
  @Matches(/^([1-5]xx|[1-5]\d\d)$/, { message: STATUS_MESSAGE })
  status?: string;

  /** Only the calls with this request id (X-Request-Id; the ledger's request_id). */
  @IsOptional()
  @Matches(REQUEST_ID, { message: REQUEST_ID_MESSAGE })
  request_id?: string;

  /** Only calls that arrived on or after this day (YYYY-MM-DD, UTC). */
  @IsOptional()
  @IsCalendarDate()
  start_date?: string;

  /** Only calls that arrived on or before this day (YYYY-MM-DD, UTC). */
  @IsOptional()
  @IsCalendarDate()
  end_date?: string;

  @IsOptional()
  @IsIn(LOGGED_OPERATIONS, { message: `operation must be one of: ${LOGGED_OPERATIONS.join(', ')}` })
  operation?: LoggedOperation;

  /** Rows per page, newest first (JSON only: a CSV export holds every matching call). Default 50. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: LIMIT_MESSAGE })
  @Min(1, { message: LIMIT_MESSAGE })
  @Max(500, { message: LIMIT_MESSAGE })
  limit?: number;

  /** `next_cursor` of the previous page. */
  @IsOptional()
  @Matches(/^\d{1,18}$/, { message: CURSOR_MESSAGE })
  cursor?: string;
}
