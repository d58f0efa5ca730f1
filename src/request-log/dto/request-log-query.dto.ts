import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsUUID, Matches, Max, Min } from 'class-validator';
import { KEY_ENVIRONMENTS, type KeyEnvironment } from '../../keys/events/key.events.js';

export const LOGGED_OPERATIONS = ['search', 'vertical', 'extract', 'map', 'crawl', 'research', 'mcp', 'usage'] as const;
export type LoggedOperation = (typeof LOGGED_OPERATIONS)[number];

const LIMIT_MESSAGE = 'limit must be an integer from 1 to 500';
const STATUS_MESSAGE = 'status must be an HTTP status (e.g. 429) or a class: 2xx, 4xx or 5xx';
const CURSOR_MESSAGE = 'cursor must be the next_cursor of a previous page';

const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value;

/** Filters of the request log; every one optional. */
export class RequestLogQueryDto {
  /** An HTTP status (`429`) or a class of them (`2xx`, `4xx`, `5xx`). */
  @IsOptional()
  @Matches(/^([1-5]xx|[1-5]\d\d)$/, { message: STATUS_MESSAGE })
  status?: string;

  @IsOptional()
  @IsIn(LOGGED_OPERATIONS, { message: `operation must be one of: ${LOGGED_OPERATIONS.join(', ')}` })
  operation?: LoggedOperation;

  @IsOptional()
  @IsUUID('all', { message: 'key_id must be an API key id (UUID)' })
  key_id?: string;

  @IsOptional()
  @IsUUID('all', { message: 'project_id must be a project id (UUID)' })
  project_id?: string;

  @IsOptional()
  @IsIn(KEY_ENVIRONMENTS, { message: `environment must be one of: ${KEY_ENVIRONMENTS.join(', ')}` })
  environment?: KeyEnvironment;

  /** Rows per page, newest first. Default 50. */
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
