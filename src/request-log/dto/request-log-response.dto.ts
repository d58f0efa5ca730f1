import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { KEY_ENVIRONMENTS } from '../../keys/events/key.events.js';
import { LedgerEntryDto } from '../../metering/ledger/ledger-response.dto.js';
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

  /**
   * Why the call was refused or failed: its error's text (URLs without query or userinfo, keys cut to their prefix);
   * null when it succeeded.
   */
  @ApiProperty({ type: 'string', nullable: true, example: 'Forbidden: this API key lacks the search scope.' })
  error!: string | null;
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

/** One call: its row in the request log and its charges in the ledger, tied by the request id. */
@ApiSchema({ name: 'RequestDetail' })
export class RequestDetailDto {
  /**
   * The call as the request log has it: one row, or none once it is older than the log's retention (several only
   * when a client sent one X-Request-Id with several calls).
   */
  requests!: LoggedRequestDto[];

  /** What the ledger charged for it, in the ledger's order: none for a refused or free call, one per MCP tool call. */
  charges!: LedgerEntryDto[];

  /** The sum of the charges' credits. */
  credits!: number;

  /** How long calls stay in the request log (the ledger keeps its charges for good). */
  @ApiProperty({ type: 'integer' })
  retention_days!: number;
}
