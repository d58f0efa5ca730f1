import { BadRequestException, HttpException, Injectable, Logger, type Type } from '@nestjs/common';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ExtractRequestDto } from '../extract/dto/extract-request.dto.js';
import { ExtractService } from '../extract/extract.service.js';
import { isUnavailableDependency } from '../http/unavailable-dependency.js';
import { createValidationPipe } from '../http/validation.pipe.js';
import type { KeyRecord } from '../keys/key-record.js';
import { EXTRACT, MAX_EXTRACT_URLS, type MeteredOperationSpec, SEARCH } from '../metering/metered-operation.js';
import { MeteringPipeline, type WorkOutcome } from '../metering/metering-pipeline.js';
import { MeteringException } from '../metering/metering.errors.js';
import { SearchRequestDto } from '../search/dto/search-request.dto.js';
import { SearchService } from '../search/search.service.js';
import { formatExtract, formatSearch } from './format-results.js';
import { ErrorCode } from './json-rpc.js';
import { type McpToolName, isToolName } from './mcp-tools.js';

/** What one HTTP request to /mcp brings to the tool calls it carries (one, or several in a batch). */
export interface McpCallContext {
  readonly apiKey: string;
  readonly key: KeyRecord;
  /** The HTTP request id (x-request-id). */
  readonly requestId: string;
  /** The HTTP Idempotency-Key header. */
  readonly idempotencyKey: string | null;
  /** JSON-RPC id → position among the request's tools/call messages (0-based), and how many there are. */
  readonly callPositions: ReadonlyMap<string | number, number>;
  /** Receives the usage headers of each call, with the call's position. */
  usageHeaders(position: number, headers: Record<string, string>): void;
}

interface ToolSpec {
  readonly spec: MeteredOperationSpec;
  readonly dto: Type;
  work(dto: unknown): Promise<WorkOutcome>;
  format(body: Record<string, unknown>): string;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** The key of a tool result's `_meta` that carries the usage headers of the call (also for SSE responses). */
export const USAGE_META = 'searchledger/usage';
/** The key of a refused call's `_meta` that carries the HTTP status and error body REST would have answered. */
export const ERROR_META = 'searchledger/error';

/**
 * tools/call of `search` and `extract`: the arguments validated by the same DTOs (and the same pipe) as the REST
 * bodies, then the same service behind the same metering pipeline (channel `mcp`). Protocol problems are JSON-RPC
 * errors: an unknown tool or invalid arguments are -32602 (InvalidParams), charging nothing. Refusals of the
 * pipeline (scope and depth 403, quota 402, rate limit 429, idempotency 409/422) and failures an agent may retry
 * (502, 503) are tool results with `isError: true` whose text says why and what to do.
 */
@Injectable()
export class McpToolCalls {
  private readonly logger = new Logger('Mcp');
  private readonly validation = createValidationPipe();
  private readonly tools: Record<McpToolName, ToolSpec>;

  constructor(
    private readonly pipeline: MeteringPipeline,
    searches: SearchService,
    extracts: ExtractService,
  ) {
    this.tools = {
      search: {
        spec: SEARCH,
        dto: SearchRequestDto,
        work: (dto) => searches.search(dto as SearchRequestDto),
        format: formatSearch,
      },
      extract: {
        spec: EXTRACT,
        dto: ExtractRequestDto,
        work: (dto) => extracts.extract(dto as ExtractRequestDto),
        format: formatExtract,
      },
    };
  }

  async call(
    name: string,
    args: Record<string, unknown> | undefined,
    context: McpCallContext,
    rpcId: string | number,
  ): Promise<CallToolResult> {
    if (!isToolName(name)) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
    const tool = this.tools[name];
    const body: Record<string, unknown> = { ...(args ?? {}) };
    delete body.api_key;
    const dto = await this.validate(name, tool.dto, body);

    if (!context.key.scopes.includes('mcp')) {
      return refusal(403, {
        error: "Forbidden: this API key does not have the 'mcp' scope.",
      });
    }
    const position = context.callPositions.get(rpcId) ?? 0;
    const several = context.callPositions.size > 1;
    try {
      const response = await this.pipeline.execute(
        {
          spec: tool.spec,
          channel: 'mcp',
          apiKey: context.apiKey,
          body,
          // One Idempotency-Key covers one tool call: the calls of a batch get `<key>/<n>` (n from 1).
          idempotencyKey:
            context.idempotencyKey && several ? `${context.idempotencyKey}/${position + 1}` : context.idempotencyKey,
          route: `mcp tools/call ${name}`,
          requestId: several ? `${context.requestId}:${position + 1}` : context.requestId,
        },
        () => tool.work(dto),
      );
      context.usageHeaders(position, response.headers);
      const result = response.body as Record<string, unknown>;
      return {
        content: [{ type: 'text', text: tool.format(result) }],
        structuredContent: result,
        _meta: { [USAGE_META]: response.headers },
      };
    } catch (error) {
      if (error instanceof MeteringException) {
        context.usageHeaders(position, error.headers);
        const errorBody = error.getResponse() as Record<string, unknown>;
        const status = error.getStatus();
        if (status === 400) throw invalidArguments(name, String(errorBody.error));
        return refusal(status, errorBody, error.headers);
      }
      if (error instanceof HttpException) {
        const message = String((error.getResponse() as { error?: unknown }).error ?? error.message);
        return refusal(error.getStatus(), { error: message });
      }
      if (isUnavailableDependency(error)) {
        this.logger.error({ err: error }, 'a dependency is unavailable');
        return refusal(
          503,
          { error: 'The service is temporarily unavailable; retry shortly.' },
          { 'Retry-After': '5' },
        );
      }
      this.logger.error({ err: error }, `tools/call ${name} failed`);
      throw new McpError(ErrorCode.InternalError, 'Internal server error');
    }
  }

  /** The DTO of the REST route, through the REST validation pipe: the same rules and the same first message. */
  private async validate(name: McpToolName, dto: Type, body: Record<string, unknown>): Promise<unknown> {
    let value: unknown;
    try {
      value = await this.validation.transform(body, { type: 'body', metatype: dto });
    } catch (error) {
      if (error instanceof BadRequestException) {
        throw invalidArguments(name, String((error.getResponse() as { error?: unknown }).error ?? error.message));
      }
      throw error;
    }
    if (value instanceof ExtractRequestDto && value.urls.length > MAX_EXTRACT_URLS) {
      throw invalidArguments(name, `Max ${MAX_EXTRACT_URLS} URLs are allowed.`);
    }
    return value;
  }
}

function invalidArguments(tool: string, message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid arguments for tool ${tool}: ${message}`);
}

/** A refused or failed call as a tool result an agent can act on: the reason, the figures, whether to retry. */
export function refusal(
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): CallToolResult {
  const message = String(body.error ?? 'The request failed.');
  const lines = [`Refused: HTTP ${status} ${STATUS_TEXT[status] ?? 'Error'}. ${message}`];
  switch (status) {
    case 402: {
      const used = body.credits_used ?? headers['X-Credits-Used'];
      const limit = body.credits_limit ?? headers['X-Credits-Limit'];
      lines.push(
        `Credits used this month: ${String(used)} of ${String(limit)}.`,
        'Do not retry: the monthly allowance renews on the 1st of next month (UTC), or the plan must be raised.',
      );
      break;
    }
    case 429: {
      const wait = body.retry_after ?? headers['Retry-After'];
      lines.push(`Retry after ${String(wait)} seconds.`);
      break;
    }
    case 403:
      lines.push(
        /depth/.test(message)
          ? "Do not retry as is: ask for depth 'basic', or use a key that is not limited to basic depth."
          : 'Do not retry with this key: use a key that has the scope.',
      );
      break;
    case 401:
      lines.push('Do not retry: check the API key.');
      break;
    case 409:
      lines.push('A call with the same Idempotency-Key is still running: retry after it completes.');
      break;
    case 422:
      lines.push('Use a new Idempotency-Key for a different request.');
      break;
    case 502:
    case 503:
      lines.push(`Retry with backoff${headers['Retry-After'] ? `, after ${headers['Retry-After']} seconds` : ''}.`);
      break;
  }
  return {
    content: [{ type: 'text', text: lines.join('\n') }],
    isError: true,
    _meta: { [ERROR_META]: { status, ...body }, ...(Object.keys(headers).length > 0 ? { [USAGE_META]: headers } : {}) },
  };
}
