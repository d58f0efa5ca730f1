import {
  BadRequestException,
  Controller,
  Get,
  Headers,
  NotFoundException,
  Param,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentSession, SessionGuard } from '../../auth/session.guard.js';
import type { SessionUser } from '../../auth/session.service.js';
import { errorBody } from '../../http/error-body.js';
import { ApiOrgScoped, ApiSessionAuth } from '../../http/openapi/api-route.decorators.js';
import { OrgAccessService } from '../../organizations/org-access.service.js';
import { prefersCsv } from '../ledger/csv.js';
import { statementCsv, statementListCsv } from './statement-csv.js';
import { StatementDto, StatementListDto } from './statement.dto.js';
import { StatementQueries } from './statement.queries.js';
import { MONTH_PATTERN } from './statement-summary.js';

const MONTH_MESSAGE = 'month must be a calendar month written YYYY-MM, e.g. 2026-11';

/**
 * Closed months: an organization's statements, as JSON or CSV (Accept: text/csv), exactly as issued. Session auth;
 * any member may read; anyone else gets 404.
 */
@Controller('orgs/:org_id/statements')
@UseGuards(SessionGuard)
@ApiSessionAuth()
@ApiOrgScoped()
@ApiTags('Finance and audit')
export class StatementsController {
  constructor(
    private readonly access: OrgAccessService,
    private readonly queries: StatementQueries,
  ) {}

  /** The organization's statements, newest month first (JSON, or one CSV record per month) */
  @Get()
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({ type: StatementListDto })
  async list(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StatementListDto | string> {
    await this.access.requireMember(session.userId, orgId);
    const statements = await this.queries.list(orgId);
    void reply.header('vary', 'accept');
    if (!prefersCsv(accept)) return { statements };
    csvHeaders(reply, `statements-${orgId}.csv`);
    return statementListCsv(statements);
  }

  /** One month's statement, as issued (JSON, or CSV with its lines and adjustments) */
  @Get(':month')
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({ type: StatementDto })
  async get(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Param('month') month: string,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StatementDto | string> {
    await this.access.requireMember(session.userId, orgId);
    if (!MONTH_PATTERN.test(month)) throw new BadRequestException(errorBody(MONTH_MESSAGE));
    const statement = await this.queries.get(orgId, month);
    if (!statement) throw new NotFoundException(errorBody(`no statement for ${month}: the month is not closed`));
    void reply.header('vary', 'accept');
    if (!prefersCsv(accept)) return statement;
    csvHeaders(reply, `statement-${orgId}-${month}.csv`);
    return statementCsv(statement);
  }
}

function csvHeaders(reply: FastifyReply, name: string): void {
  void reply.header('content-type', 'text/csv; charset=utf-8');
  void reply.header('content-disposition', `attachment; filename="${name}"`);
}
