import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { KEY_ENVIRONMENTS } from '../../keys/events/key.events.js';
import { LOGGED_OPERATIONS } from './request-log-query.dto.js';

/** One data-plane call: what was asked, by which key, how it ended, how long it took, what it cost. */
@ApiSchema({ name: 'LoggedRequest' })
export class LoggedRequestDto {
  /** When the call arrived. */
  @ApiProperty({ format: 'date-time' })
  occurred_at!: string;

  /** The call's request id (X-Request-Id; the ledger's request_id when it was charged). */
  request_id!: string;

  /** HTTP method. */
  method!: string;

  /** The route, e.g. /search or /search/:vertical. */
  path!: string;

  /** Operation. */
  @ApiProperty({ enum: LOGGED_OPERATIONS })
  operation!: string;

  /** HTTP status of the answer (401 for a revoked key, 403, 429, 402, 400 for refusals). */
  @ApiProperty({ type: 'integer' })
  status!: number;

  /** Key. */
  @ApiProperty({ format: 'uuid' })
  key_id!: string;

  /** Key name. */
  key_name!: string | null;

  /** Key prefix (never the key). */
  key_prefix!: string | null;

  /** Key environment. */
  @ApiProperty({ enum: KEY_ENVIRONMENTS })
  key_environment!: string;

  /** Project. */
  @ApiProperty({ format: 'uuid' })
  project_id!: string;

  /** The query, or the URL(s) without their query strings, clipped to 200 characters. */
  summary!: string | null;

  /** The depth asked for: basic or advanced, the vertical, the research model; null when the call names none. */
  depth!: string | null;

  /** From the request's arrival to the end of its response, in milliseconds. */
  latency_ms!: number;

  /** Credits charged; null when the call was not charged (refused, failed, free, or billed later: research). */
  credits!: number | null;
}

@ApiSchema({ name: 'RequestLogPage' })
export class RequestLogPageDto {
  /** Newest first. */
  requests!: LoggedRequestDto[];

  /** Pass as cursor for the next page; null on the last page. */
  next_cursor!: string | null;

  /** How long calls stay in the log (REQUEST_LOG_RETENTION_DAYS). */
  @ApiProperty({ type: 'integer' })
  retention_days!: number;
}
