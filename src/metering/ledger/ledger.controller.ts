import { Readable } from 'node:stream';
import { Controller, Get, Headers, Param, Query, Res, StreamableFile, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentSession, SessionGuard } from '../../auth/session.guard.js';
import type { SessionUser } from '../../auth/session.service.js';
import { ApiOrgScoped, ApiSessionAuth } from '../../http/openapi/api-route.decorators.js';
import { OrgAccessService } from '../../organizations/org-access.service.js';
import { billingMonth } from '../counter-keys.js';
import { CreditGrantViews } from '../grants/credit-grant-views.js';
import { prefersCsv } from './csv.js';
import { financeCsv } from './finance-csv.js';
import { decodeCursor, encodeCursor } from './ledger-cursor.js';
import { LedgerPageDto, UsageReportDto } from './ledger-response.dto.js';
import { ALL_MONTHS, LedgerQueryDto, UsageQueryDto } from './ledger.dto.js';
import { auditCsv } from './ledger-csv.js';
import { type LedgerFilter, LedgerQueries } from './ledger.queries.js';
import { usageLimit } from './usage-limit.js';
import { KEY_ENVIRONMENTS } from '../../keys/events/key.events.js';

const DEFAULT_LIMIT = 100;
/** Rows per query while a CSV export streams. */
const EXPORT_PAGE = 1000;

/**
 * Finance and audit: an organization's usage of a month, and its ledger (one entry per charge, newest first or in
 * the event store's order; the current month unless another month or every month is asked for) as JSON pages with
 * the filter's totals, or a CSV export (audit columns, or finance columns with a total per environment).
 * Session auth; any member may read; anyone else gets 404.
 */
@Controller('orgs/:org_id')
@UseGuards(SessionGuard)
@ApiSessionAuth()
@ApiOrgScoped()
@ApiTags('Finance and audit')
export class LedgerController {
  constructor(
    private readonly access: OrgAccessService,
    private readonly queries: LedgerQueries,
    private readonly grantViews: CreditGrantViews,
  ) {}

  /** An organization's usage of a month (by project, key, operation and day) */
  @Get('usage')
  @ApiOkResponse({ type: UsageReportDto })
  async usage(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Query() query: UsageQueryDto,
  ): Promise<UsageReportDto> {
    await this.access.requireMember(session.userId, orgId);
    const month = query.month ?? billingMonth(new Date());
    const report = await this.queries.usage(orgId, month);
    const { grants, overage } = await this.grantViews.spending(orgId, month);
    return { ...report, ...usageLimit(report, { grants, overage }), grants, overage };
  }

  /** The ledger: every charge, newest first or in store order, as JSON pages or a CSV export (Accept: text/csv) */
  @Get('ledger')
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({ type: LedgerPageDto, description: 'A page of charges (JSON), or every matching charge (CSV).' })
  async ledger(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Query() query: LedgerQueryDto,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<LedgerPageDto | StreamableFile> {
    await this.access.requireMember(session.userId, orgId);
    const month = query.month ?? billingMonth(new Date());
    const filter: LedgerFilter = {
      month: month === ALL_MONTHS ? undefined : month,
      projectId: query.project_id,
      keyId: query.key_id,
      operation: query.operation,
      environment: query.environment,
      requestId: query.request_id,
    };
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const order = query.order ?? 'desc';
    void reply.header('vary', 'accept');
    if (prefersCsv(accept)) {
      // The first page is read before the response starts, so that a failure is still an error response; the
      // rest streams page by page as the client reads.
      const first = await this.queries.page(orgId, filter, EXPORT_PAGE, after, order);
      const pages = this.queries.pages(orgId, filter, first, EXPORT_PAGE, order);
      const finance = query.format === 'finance';
      const environments = query.environment ? [query.environment] : KEY_ENVIRONMENTS;
      const records = finance ? financeCsv(pages, filter.month, environments) : auditCsv(pages);
      const name = `ledger-${finance ? 'finance-' : ''}${orgId.toLowerCase()}-${month}.csv`;
      return new StreamableFile(Readable.from(records), {
        type: 'text/csv; charset=utf-8',
        disposition: `attachment; filename="${name}"`,
      });
    }
    const [page, totals] = await Promise.all([
      this.queries.page(orgId, filter, query.limit ?? DEFAULT_LIMIT, after, order),
      this.queries.totals(orgId, filter),
    ]);
    return { entries: page.entries, totals, next_cursor: page.next ? encodeCursor(page.next) : null };
  }
}
