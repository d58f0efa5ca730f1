import { BadRequestException, HttpException, Inject, Injectable, Logger, type Type } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { McpOperation } from '../config/mcp-tools.setting.js';
import { CrawlService } from '../crawl/crawl.service.js';
import { CrawlRequestDto } from '../crawl/dto/crawl-request.dto.js';
import { MapRequestDto } from '../crawl/dto/map-request.dto.js';
import { MapService } from '../crawl/map.service.js';
import { ExtractRequestDto } from '../extract/dto/extract-request.dto.js';
import { ExtractService } from '../extract/extract.service.js';
import { isUnavailableDependency } from '../http/unavailable-dependency.js';
import { createValidationPipe } from '../http/validation.pipe.js';
import type { KeyRecord } from '../keys/key-record.js';
import {
  CRAWL,
  EXTRACT,
  MAP,
  MAX_EXTRACT_URLS,
  type MeteredOperationSpec,
  SEARCH,
} from '../metering/metered-operation.js';
import { type Caller, MeteringPipeline, type WorkOutcome } from '../metering/pipeline/metering-pipeline.js';
import { MeteringException } from '../metering/metering.errors.js';
import { ResearchRequestDto } from '../research/dto/research-request.dto.js';
import { SearchRequestDto } from '../search/dto/search-request.dto.js';
import { searchOrigin } from '../search/result-log/search-origin.js';
import { SearchService } from '../search/search.service.js';
import { SearchAdmission } from '../search/load/search-admission.js';
import { SearchClock } from '../search/load/search-clock.js';
import { OVERLOADED_RETRY_AFTER_SECONDS } from '../search/load/search-overloaded.js';
import { formatCrawl, formatExtract, formatMap, formatSearch } from './format-results.js';
import { ErrorCode } from './json-rpc.js';
import { type McpToolSettings, operationOf } from './mcp-tools.js';
import { ResearchTool } from './research-tool.js';
import { ProtocolError, USAGE_META, invalidArguments, refusal } from './tool-errors.js';

/** What one HTTP request to /mcp brings to the tool calls it carries (one, or several in a batch). */
export interface McpCallContext {
  readonly apiKey: string;
  readonly key: KeyRecord;
  /** The HTTP request id (x-request-id). */
  readonly requestId: string;
  /** When the HTTP request arrived (performance.now()): a search's budget counts from then. */
  readonly arrivedAt: number;
  /** The HTTP Idempotency-Key header. */
  readonly idempotencyKey: string | null;
  /** JSON-RPC id → position among the request's tools/call messages (0-based), and how many there are. */
  readonly callPositions: ReadonlyMap<string | number, number>;
  /** Receives the usage headers of each call, with the call's position. */
  usageHeaders(position: number, headers: Record<string, string>): void;
}

/** A tool that runs as one metered call: its operation, its REST body's DTO, the work and the text of its result. */
interface MeteredTool {
  readonly spec: MeteredOperationSpec;
  readonly dto: Type;
  /** `requestId`: the call's own (a batch's calls get `<request id>:<n>`); `clock`: from the HTTP request's arrival. */
  work(dto: unknown, caller: Caller, requestId: string, clock: SearchClock): Promise<WorkOutcome>;
  format(body: Record<string, unknown>): string;
}

/**
 * tools/call of the tools MCP_TOOLS offers (search and extract always; crawl, map and research on the operator's
 * say), under the names MCP_TOOL_NAMES picks: the arguments validated by the same DTOs (and the same pipe) as the
 * REST bodies, then the same service behind the same metering pipeline (channel `mcp`; research as a deferred call,
 * see ResearchTool). Only protocol problems are JSON-RPC errors: an unknown tool is -32602 (InvalidParams).
 * Everything about one call is a tool result with `isError: true` whose text says why and what to do, for every
 * protocol version the server negotiates (results with isError are valid in all of them, and 2025-11-25 asks for
 * them): invalid arguments and refused URLs (a 400 of REST, charging nothing), refusals of the pipeline (scope and
 * depth 403, quota 402, rate limit 429, idempotency 409/422) and failures an agent may retry (502, 503).
 */
@Injectable()
export class McpToolCalls {
  private readonly logger = new Logger('Mcp');
  private readonly validation = createValidationPipe();
  private readonly metered: Record<Exclude<McpOperation, 'research'>, MeteredTool>;
  readonly settings: McpToolSettings;

  constructor(
    private readonly pipeline: MeteringPipeline,
    private readonly research: ResearchTool,
    private readonly searchAdmission: SearchAdmission,
    searches: SearchService,
    extracts: ExtractService,
    maps: MapService,
    crawls: CrawlService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.settings = { operations: config.mcpTools, naming: config.mcpToolNames };
    this.metered = {
      search: {
        spec: SEARCH,
        dto: SearchRequestDto,
        work: (dto, caller, requestId, clock) =>
          searches.search(dto as SearchRequestDto, searchOrigin(caller, requestId), clock),
        format: formatSearch,
      },
      extract: {
        spec: EXTRACT,
        dto: ExtractRequestDto,
        work: (dto) => extracts.extract(dto as ExtractRequestDto),
        format: formatExtract,
      },
      crawl: {
        spec: CRAWL,
        dto: CrawlRequestDto,
        work: (dto) => crawls.crawl(dto as CrawlRequestDto),
        format: formatCrawl,
      },
      map: { spec: MAP, dto: MapRequestDto, work: (dto) => maps.map(dto as MapRequestDto), format: formatMap },
    };
  }

  async call(
    name: string,
    args: Record<string, unknown> | undefined,
    context: McpCallContext,
    rpcId: string | number,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const operation = operationOf(name, this.settings);
    if (!operation) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const body: Record<string, unknown> = { ...(args ?? {}) };
    delete body.api_key;
    const validated = await this.validate(
      operation === 'research' ? ResearchRequestDto : this.metered[operation].dto,
      body,
    );
    if (!validated.ok) return invalidArguments(name, validated.invalid);

    if (!context.key.scopes.includes('mcp')) {
      return refusal(403, {
        error: "Forbidden: this API key does not have the 'mcp' scope.",
      });
    }
    const position = context.callPositions.get(rpcId) ?? 0;
    const several = context.callPositions.size > 1;
    const call = {
      apiKey: context.apiKey,
      body,
      // One Idempotency-Key covers one tool call: the calls of a batch get `<key>/<n>` (n from 1).
      idempotencyKey:
        context.idempotencyKey && several ? `${context.idempotencyKey}/${position + 1}` : context.idempotencyKey,
      requestId: several ? `${context.requestId}:${position + 1}` : context.requestId,
    };
    try {
      if (operation === 'research') {
        const submitted = await this.research.submit(call);
        context.usageHeaders(position, submitted.headers);
        return await this.research.outcome(context.key.orgId, submitted, body.include_usage === true, signal);
      }
      const tool = this.metered[operation];
      // A search holds a place among the node's searches, as POST /search does, or is refused at once.
      const release = operation === 'search' ? this.searchAdmission.admit() : () => {};
      if (!release) {
        return refusal(
          503,
          { ...this.searchAdmission.refusal() },
          {
            'Retry-After': String(OVERLOADED_RETRY_AFTER_SECONDS),
          },
        );
      }
      let status = 200;
      const clock = new SearchClock(context.arrivedAt);
      const response = await this.pipeline
        .execute({ ...call, spec: tool.spec, channel: 'mcp', route: `mcp tools/call ${operation}` }, (caller) =>
          tool.work(validated.dto, caller, call.requestId, clock),
        )
        .catch((error: unknown) => {
          status = error instanceof HttpException ? error.getStatus() : 500;
          throw error;
        })
        .finally(() =>
          release({
            status,
            arrivedAt: context.arrivedAt,
            depth: body.search_depth,
            workEndedAt: clock.workEndedAt,
            askedAnswer: Boolean(body.include_answer),
          }),
        );
      context.usageHeaders(position, response.headers);
      const result = response.body as Record<string, unknown>;
      return {
        content: [{ type: 'text', text: tool.format(result) }],
        structuredContent: result,
        _meta: { [USAGE_META]: response.headers },
      };
    } catch (error) {
      return this.failure(name, error, (headers) => context.usageHeaders(position, headers));
    }
  }

  /** A call that threw, as a tool error (a server failure stays a JSON-RPC error, -32603). */
  private failure(
    name: string,
    error: unknown,
    usageHeaders: (headers: Record<string, string>) => void,
  ): CallToolResult {
    if (error instanceof MeteringException) {
      usageHeaders(error.headers);
      const errorBody = error.getResponse() as Record<string, unknown>;
      const status = error.getStatus();
      if (status === 400) return invalidArguments(name, String(errorBody.error), error.headers);
      return refusal(status, errorBody, error.headers);
    }
    if (error instanceof HttpException) {
      const message = String((error.getResponse() as { error?: unknown }).error ?? error.message);
      if (error.getStatus() === 400) return invalidArguments(name, message);
      return refusal(error.getStatus(), { error: message });
    }
    if (isUnavailableDependency(error)) {
      this.logger.error({ err: error }, 'a dependency is unavailable');
      return refusal(503, { error: 'The service is temporarily unavailable; retry shortly.' }, { 'Retry-After': '5' });
    }
    this.logger.error({ err: error }, `tools/call ${name} failed`);
    throw new ProtocolError(ErrorCode.InternalError, 'Internal server error');
  }

  /** The DTO of the REST route, through the REST validation pipe: the same rules and the same first message. */
  private async validate(
    dto: Type,
    body: Record<string, unknown>,
  ): Promise<{ ok: true; dto: unknown } | { ok: false; invalid: string }> {
    let value: unknown;
    try {
      value = await this.validation.transform(body, { type: 'body', metatype: dto });
    } catch (error) {
      if (error instanceof BadRequestException) {
        return { ok: false, invalid: String((error.getResponse() as { error?: unknown }).error ?? error.message) };
      }
      throw error;
    }
    if (value instanceof ExtractRequestDto && value.urls.length > MAX_EXTRACT_URLS) {
      return { ok: false, invalid: `Max ${MAX_EXTRACT_URLS} URLs are allowed.` };
    }
    return { ok: true, dto: value };
  }
}
