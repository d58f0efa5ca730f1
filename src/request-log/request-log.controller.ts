import { Readable } from 'node:stream';
import {
  BadRequestException,
  Controller,
  Get,
  Headers,
  Inject,
  NotFoundException,
  Param,
  Query,
  Res,
  StreamableFile,
  UseGuards,
} from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentSession, SessionGuard } from '../auth/session.guard.js';
import type { SessionUser } from '../auth/session.service.js';
import { dateWindow } from '../common/date-window.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { errorBody } from '../http/error-body.js';
import { REQUEST_ID } from '../http/request-id.js';
import { csvRecords, prefersCsv } from '../metering/ledger/csv.js';
import { LedgerQueries } from '../metering/ledger/ledger.queries.js';
import { ApiOrgScoped, ApiSessionAuth } from '../http/openapi/api-route.decorators.js';
import { OrgAccessService } from '../organizations/org-access.service.js';
import { RequestLogQueryDto } from './dto/request-log-query.dto.js';
import { RequestDetailDto, RequestLogPageDto } from './dto/request-log-response.dto.js';
import { REQUEST_LOG_COLUMNS, type RequestLogFilter, RequestLogQueries } from './request-log.queries.js';
import { RequestLogWriter } from './request-log.writer.js';

const DEFAULT_LIMIT = 50;
/** Rows per query while a CSV export streams. */
const EXPORT_PAGE = 1000;
/** The most charges one call's detail lists (an MCP batch is charged per tool call). */
const MAX_CHARGES = 100;

/**
 * An organization's request log: its data-plane calls, refused ones included, as JSON pages or a CSV export, and one
 * call with its charges in the ledger. Any member may read it; anyone else gets 404.
 */
@Controller('orgs/:org_id/requests')
@UseGuards(SessionGuard)
@ApiSessionAuth()
@ApiOrgScoped()
@ApiTags('Finance and audit')
export class RequestLogController {
  constructor(
    private readonly access: OrgAccessService,
    private readonly queries: RequestLogQueries,
    private readonly ledger: LedgerQueries,
    private readonly writer: RequestLogWriter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Data-plane calls (status, the refusal's reason, operation, key, query or URL, latency, credits), newest first, as
   * JSON pages or a CSV export of every matching call (Accept: text/csv)
   */
  @Get()
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({ type: RequestLogPageDto, description: 'A page of calls (JSON), or every matching call (CSV).' })
  async list(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Query() query: RequestLogQueryDto,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RequestLogPageDto | StreamableFile> {
    await this.access.requireMember(session.userId, orgId);
    const window = dateWindow(query.start_date, query.end_date);
    if (!window) throw new BadRequestException(errorBody('end_date must not be before start_date'));
    const filter: RequestLogFilter = { ...query, since: window.since, until: window.until };
    void reply.header('vary', 'accept');
    if (prefersCsv(accept)) {
      // The first page is read before the response starts, so that a failure is still an error response.
      const first = await this.queries.page(orgId, filter, EXPORT_PAGE);
      const records = csvRecords(REQUEST_LOG_COLUMNS, this.queries.pages(orgId, filter, first, EXPORT_PAGE));
      const span = [query.start_date, query.end_date].filter(Boolean).join('-to-') || 'recent';
      return new StreamableFile(Readable.from(records), {
        type: 'text/csv; charset=utf-8',
        disposition: `attachment; filename="requests-${orgId.toLowerCase()}-${span}.csv"`,
      });
    }
    const page = await this.queries.page(orgId, filter, query.limit ?? DEFAULT_LIMIT);
    return { requests: page.requests, next_cursor: page.next, retention_days: this.config.requestLogRetentionDays };
  }

  /** One call by its request id: how it was answered (and why it was refused), and what the ledger charged for it */
  @Get(':request_id')
  @ApiOkResponse({ type: RequestDetailDto })
  async detail(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Param('request_id') requestId: string,
  ): Promise<RequestDetailDto> {
    await this.access.requireMember(session.userId, orgId);
    const notFound = () => new NotFoundException(errorBody('No call with this request id in this organization.'));
    if (!REQUEST_ID.test(requestId)) throw notFound();
    // This node's calls still waiting for the writer's next batch are written first, so that a fresh call is found.
    await this.writer.flush();
    const [logged, charged] = await Promise.all([
      this.queries.page(orgId, { request_id: requestId }, 10),
      this.ledger.page(orgId, { requestId }, MAX_CHARGES, undefined, 'asc'),
    ]);
    if (logged.requests.length === 0 && charged.entries.length === 0) throw notFound();
    return {
      requests: logged.requests,
      charges: charged.entries,
      credits: Math.round(charged.entries.reduce((sum, entry) => sum + entry.credits, 0) * 10_000) / 10_000,
      retention_days: this.config.requestLogRetentionDays,
    };
  }
}
