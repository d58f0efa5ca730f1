import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentSession, SessionGuard } from '../auth/session.guard.js';
import type { SessionUser } from '../auth/session.service.js';
import { ApiOrgScoped, ApiSessionAuth } from '../http/openapi/api-route.decorators.js';
import { OrgAccessService } from '../organizations/org-access.service.js';
import { FeedbackPageDto, FeedbackQueryDto } from './dto/feedback-list.dto.js';
import { decodeFeedbackCursor, encodeFeedbackCursor } from './feedback-cursor.js';
import { FeedbackRepository, type StoredFeedback } from './feedback.repository.js';

const DEFAULT_LIMIT = 50;

/** The feedback an organization's keys sent, for its members (session auth; anyone else gets 404). */
@Controller('orgs/:org_id')
@UseGuards(SessionGuard)
@ApiSessionAuth()
@ApiOrgScoped()
@ApiTags('Search feedback')
export class OrgFeedbackController {
  constructor(
    private readonly access: OrgAccessService,
    private readonly feedback: FeedbackRepository,
  ) {}

  /** Feedback on the organization's search results, newest first */
  @Get('feedback')
  @ApiOkResponse({ type: FeedbackPageDto })
  async list(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Query() query: FeedbackQueryDto,
  ): Promise<FeedbackPageDto> {
    await this.access.requireMember(session.userId, orgId);
    const limit = query.limit ?? DEFAULT_LIMIT;
    const after = query.cursor === undefined ? undefined : decodeFeedbackCursor(query.cursor);
    const page = await this.feedback.page(orgId, limit + 1, after);
    const entries = page.slice(0, limit);
    const last = entries.at(-1);
    return {
      entries: entries.map(entryOf),
      next_cursor:
        page.length > limit && last
          ? encodeFeedbackCursor({ createdAt: last.createdAt, feedbackId: last.feedbackId })
          : null,
    };
  }
}

function entryOf(stored: StoredFeedback): FeedbackPageDto['entries'][number] {
  return {
    feedback_id: stored.feedbackId,
    created_at: stored.createdAt.toISOString(),
    project_id: stored.projectId,
    key_id: stored.keyId,
    search_request_id: stored.requestId,
    feedback: stored.feedback as unknown as Record<string, unknown>,
    judgments: [...stored.judgments],
  };
}
