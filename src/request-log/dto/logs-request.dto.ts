import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsUUID, Matches, Max, Min } from 'class-validator';
import { IsCalendarDate } from '../../http/dto/calendar-date.js';

/** The endpoints POST /logs reports on (Tavily's names; vertical searches are `search`). */
export const LOG_ENDPOINTS = ['search', 'extract', 'map', 'crawl', 'research'] as const;
export type LogEndpoint = (typeof LOG_ENDPOINTS)[number];

export const MAX_LOGS = 10_000;
const LIMIT_MESSAGE = `limit must be an integer from 1 to ${MAX_LOGS}`;

/** POST /logs (Tavily's OpenAPI): which calls of the organization's log to return; every field optional. */
@ApiSchema({ name: 'LogsRequest' })
export class LogsRequestDto {
  /** Most entries to return, newest first. Default 10. */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_LOGS, default: 10, example: 100 })
  @IsOptional()
  @IsInt({ message: LIMIT_MESSAGE })
  @Min(1, { message: LIMIT_MESSAGE })
  @Max(MAX_LOGS, { message: LIMIT_MESSAGE })
  limit?: number;

  /** First day of the window (YYYY-MM-DD, UTC, inclusive). */
  @ApiPropertyOptional({ format: 'date', example: '2026-08-01' })
  @IsOptional()
  @IsCalendarDate()
  start_date?: string;

  /** Last day of the window (YYYY-MM-DD, UTC, inclusive). */
  @ApiPropertyOptional({ format: 'date', example: '2026-08-07' })
  @IsOptional()
  @IsCalendarDate()
  end_date?: string;

  /** Only calls of these endpoints (vertical searches count as search). Default: all of them. */
  @ApiPropertyOptional({ enum: LOG_ENDPOINTS, isArray: true, example: ['search', 'research'] })
  @IsOptional()
  @IsArray({ message: `endpoints must be a list of: ${LOG_ENDPOINTS.join(', ')}` })
  @IsIn(LOG_ENDPOINTS, { each: true, message: `endpoints must each be one of: ${LOG_ENDPOINTS.join(', ')}` })
  endpoints?: LogEndpoint[];

  /** Only calls of the keys of this project. */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'project_id must be a project id (UUID)' })
  project_id?: string;

  /** true: only the calls of the key that authenticates this request; false (default): every key of its organization. */
  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean({ message: 'filter_by_api_key must be true or false' })
  filter_by_api_key?: boolean;

  /** Not in Tavily's API: `next_cursor` of the previous answer, for the entries after it. */
  @ApiPropertyOptional()
  @IsOptional()
  @Matches(/^\d{1,18}$/, { message: 'cursor must be the next_cursor of a previous answer' })
  cursor?: string;
}
