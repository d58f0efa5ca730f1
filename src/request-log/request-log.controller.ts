import { Controller, Get, Inject, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentSession, SessionGuard } from '../auth/session.guard.js';
import type { SessionUser } from '../auth/session.service.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ApiOrgScoped, ApiSessionAuth } from '../openapi/api-route.decorators.js';
import { OrgAccessService } from '../organizations/org-access.service.js';
import { RequestLogQueryDto } from './dto/request-log-query.dto.js';
import { RequestLogPageDto } from './dto/request-log-response.dto.js';
import { RequestLogQueries } from './request-log.queries.js';

const DEFAULT_LIMIT = 50;

/** An organization's request log: its data-plane calls, refused ones included. Any member may read it. */
@Controller('orgs/:org_id/requests')
@UseGuards(SessionGuard)
@ApiSessionAuth()
@ApiOrgScoped()
@ApiTags('Finance and audit')
export class RequestLogController {
  constructor(
    private readonly access: OrgAccessService,
    private readonly queries: RequestLogQueries,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Recent data-plane calls (status, operation, key, query or URL, latency, credits), newest first */
  @Get()
  @ApiOkResponse({ type: RequestLogPageDto })
  async list(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Query() query: RequestLogQueryDto,
  ): Promise<RequestLogPageDto> {
    await this.access.requireMember(session.userId, orgId);
    const page = await this.queries.page(orgId, query, query.limit ?? DEFAULT_LIMIT);
    return { requests: page.requests, next_cursor: page.next, retention_days: this.config.requestLogRetentionDays };
  }
}
