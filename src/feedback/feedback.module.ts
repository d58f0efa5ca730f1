import { Module } from '@nestjs/common';
import { SearchModule } from '../search/search.module.js';
import { FeedbackController } from './feedback.controller.js';
import { FeedbackRepository } from './feedback.repository.js';
import { FeedbackService } from './feedback.service.js';
import { OrgFeedbackController } from './org-feedback.controller.js';

/**
 * Feedback on search results: POST /feedback with an API key (free, rate limited), stored per organization with the
 * judgments it makes about the organization's kept searches (SearchResultLog); GET /orgs/{org_id}/feedback for
 * members; the `feedback export` CLI turns it into a judged query set for `npm run eval:search`.
 */
@Module({
  imports: [SearchModule],
  controllers: [FeedbackController, OrgFeedbackController],
  providers: [FeedbackService, FeedbackRepository],
  exports: [FeedbackRepository],
})
export class FeedbackModule {}
