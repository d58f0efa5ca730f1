import { Readable } from 'node:stream';
import {
  BadRequestException,
  Controller,
  Get,
  Headers,
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
import { errorBody } from '../http/error-body.js';
import { csvRecords, prefersCsv } from '../metering/ledger/csv.js';
import { decodeCursor, encodeCursor } from '../metering/ledger/ledger-cursor.js';
import { ApiOrgScoped, ApiSessionAuth } from '../http/openapi/api-route.decorators.js';
import { OrgAccessService } from '../organizations/org-access.service.js';
import { AUDIT_CSV_COLUMNS, type AuditLogFilter, AuditLogQueries } from './audit-log.queries.js';
import { AuditLogQueryDto } from './dto/audit-log-query.dto.js';
import { AuditLogPageDto } from './dto/audit-log-response.dto.js';

const DEFAULT_LIMIT = 50;
const EXPORT_PAGE = 1000;

/**
 * An organization's audit log: who did what to the organization, its members, projects and keys, and when, from the
 * events (newest first), as JSON pages or a CSV export. Owners and admins read it; anyone else gets 404.
 */
@Controller('orgs/:org_id/audit-log')
@UseGuards(SessionGuard)
@ApiSessionAuth()
@ApiOrgScoped()
@ApiTags('Finance and audit')
export class AuditLogController {
  constructor(
    private readonly access: OrgAccessService,
    private readonly queries: AuditLogQueries,
  ) {}

  /** Control-plane actions (actor, action, target, time), newest first, as JSON pages or CSV (Accept: text/csv) */
  @Get()
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({ type: AuditLogPageDto, description: 'A page of actions (JSON), or every matching action (CSV).' })
  async list(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Query() query: AuditLogQueryDto,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<AuditLogPageDto | StreamableFile> {
    await this.access.requireMember(session.userId, orgId, ['owner', 'admin']);
    const window = dateWindow(query.start_date, query.end_date);
    if (!window) throw new BadRequestException(errorBody('end_date must not be before start_date'));
    const filter: AuditLogFilter = {
      action: query.action,
      actor: query.actor,
      targetId: query.target_id,
      since: window.since,
      until: window.until,
    };
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    void reply.header('vary', 'accept');
    if (prefersCsv(accept)) {
      const first = await this.queries.page(orgId, filter, EXPORT_PAGE, after);
      const records = csvRecords(AUDIT_CSV_COLUMNS, this.queries.csvPages(orgId, filter, first, EXPORT_PAGE));
      return new StreamableFile(Readable.from(records), {
        type: 'text/csv; charset=utf-8',
        disposition: `attachment; filename="audit-log-${orgId.toLowerCase()}.csv"`,
      });
    }
    const page = await this.queries.page(orgId, filter, query.limit ?? DEFAULT_LIMIT, after);
    return { entries: page.entries, next_cursor: page.next ? encodeCursor(page.next) : null };
  }
}
