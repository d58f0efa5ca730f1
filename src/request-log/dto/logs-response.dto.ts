import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { LOG_ENDPOINTS } from './logs-request.dto.js';

/** One call: when, which endpoint, how deep, how long, what it cost, which key (masked). Never its input or output. */
@ApiSchema({ name: 'LogEntry' })
export class LogEntryDto {
  /** When the call arrived. */
  @ApiProperty({ format: 'date-time' })
  timestamp!: string;

  /** Which endpoint was called (a vertical search is `search`). */
  @ApiProperty({ enum: LOG_ENDPOINTS })
  endpoint!: string;

  /** The depth asked for (basic or advanced, the vertical's name, the research model); null when none applies. */
  @ApiProperty({ type: 'string', nullable: true })
  depth!: string | null;

  /** From the call's arrival to the end of its response, in seconds. */
  response_time!: number;

  /** Credits charged; 0 when the call was not charged (refused, failed, free, or billed later: research). */
  credits!: number;

  /** The key's display prefix followed by `...` (never the key); null when the key is no longer known. */
  @ApiProperty({ type: 'string', nullable: true, example: 'sk_live_Ab3dE9...' })
  api_key!: string | null;

  /** The call's request id (its X-Request-Id). */
  request_id!: string;

  /** Not in Tavily's API: the HTTP status the call was answered with (refused calls are logged too). */
  @ApiProperty({ type: 'integer' })
  status!: number;
}

@ApiSchema({ name: 'LogsResponse' })
export class LogsResponseDto {
  /** Newest first. */
  logs!: LogEntryDto[];

  /** Number of entries returned. */
  @ApiProperty({ type: 'integer' })
  count!: number;

  /** Time taken to answer this request, in seconds. */
  response_time!: number;

  /** This request's id. */
  request_id!: string;

  /** Not in Tavily's API: pass as `cursor` for the entries after these; null when there are none. */
  @ApiProperty({ type: 'string', nullable: true })
  next_cursor!: string | null;
}
