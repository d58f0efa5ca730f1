import { type ArgumentMetadata, BadRequestException, Injectable } from '@nestjs/common';
import { dateWindow } from '../common/date-window.js';
import { errorBody } from '../http/error-body.js';
import { createValidationPipe } from '../http/validation.pipe.js';
import { maskedKey } from '../keys/masked-key.js';
import { MeteringPipeline } from '../metering/pipeline/metering-pipeline.js';
import { MeteringException } from '../metering/metering.errors.js';
import { LOG_ENDPOINTS, type LogEndpoint, LogsRequestDto } from './dto/logs-request.dto.js';
import type { LogEntryDto, LogsResponseDto } from './dto/logs-response.dto.js';
import type { LoggedRequestDto } from './dto/request-log-response.dto.js';
import { RequestLogQueries } from './request-log.queries.js';
import { RequestLogWriter } from './request-log.writer.js';

const BODY: ArgumentMetadata = { type: 'body', metatype: LogsRequestDto };
const DEFAULT_LIMIT = 10;

/** The request log's operations behind each endpoint of POST /logs. */
const OPERATIONS: Readonly<Record<LogEndpoint, readonly string[]>> = {
  search: ['search', 'vertical'],
  extract: ['extract'],
  map: ['map'],
  crawl: ['crawl'],
  research: ['research'],
};
const ENDPOINT_OF: Readonly<Record<string, LogEndpoint>> = Object.fromEntries(
  LOG_ENDPOINTS.flatMap((endpoint) => OPERATIONS[endpoint].map((operation) => [operation, endpoint])),
);

export interface LogsAnswer {
  readonly body: LogsResponseDto;
  readonly headers: Record<string, string>;
}

/**
 * POST /logs: the key (401) and the rate limit (429) as every data-plane call, then the body (400), then the calls of
 * the key's organization from the request log, newest first. An entry holds what Tavily's does (time, endpoint,
 * depth, response time, credits, the key masked, request id) and the status; never the query, URLs or results.
 */
@Injectable()
export class LogsService {
  private readonly validation = createValidationPipe();

  constructor(
    private readonly pipeline: MeteringPipeline,
    private readonly queries: RequestLogQueries,
    private readonly writer: RequestLogWriter,
  ) {}

  /** `body`: null when the request's body is not a JSON object. */
  async logs(apiKey: string | null, body: Record<string, unknown> | null, requestId: string): Promise<LogsAnswer> {
    const startedAt = performance.now();
    const { caller, headers } = await this.pipeline.authenticateAndLimit(apiKey);
    try {
      if (!body) throw new BadRequestException(errorBody('The body must be a JSON object.'));
      const given = (await this.validation.transform(body, BODY)) as LogsRequestDto;
      const window = dateWindow(given.start_date, given.end_date);
      if (!window) throw new BadRequestException(errorBody('end_date must not be before start_date'));
      const endpoints = given.endpoints ?? LOG_ENDPOINTS;
      // This node's calls still waiting for the writer's next batch are written first, so that they are read.
      await this.writer.flush();
      const page = await this.queries.page(
        caller.key.orgId,
        {
          operations: endpoints.flatMap((endpoint) => OPERATIONS[endpoint]),
          project_id: given.project_id,
          key_id: given.filter_by_api_key === true ? caller.key.keyId : undefined,
          since: window.since,
          until: window.until,
          cursor: given.cursor,
        },
        given.limit ?? DEFAULT_LIMIT,
      );
      const logs = page.requests.map(logEntry);
      return {
        headers,
        body: {
          logs,
          count: logs.length,
          response_time: Math.round(performance.now() - startedAt) / 1000,
          request_id: requestId,
          next_cursor: page.next,
        },
      };
    } catch (error) {
      throw MeteringException.withHeaders(error, headers);
    }
  }
}

function logEntry(row: LoggedRequestDto): LogEntryDto {
  return {
    timestamp: row.occurred_at,
    endpoint: ENDPOINT_OF[row.operation] ?? row.operation,
    depth: row.depth,
    response_time: Math.round(row.latency_ms) / 1000,
    credits: row.credits ?? 0,
    api_key: maskedKey(row.key_prefix),
    request_id: row.request_id,
    status: row.status,
  };
}
