import { randomUUID } from 'node:crypto';
import { type ArgumentMetadata, BadRequestException, Injectable } from '@nestjs/common';
import { errorBody } from '../http/error-body.js';
import { createValidationPipe } from '../http/validation.pipe.js';
import { MeteringPipeline } from '../metering/pipeline/metering-pipeline.js';
import { MeteringException } from '../metering/metering.errors.js';
import { SearchResultLog } from '../search/result-log/search-result-log.js';
import { FeedbackRequestDto } from './dto/feedback-request.dto.js';
import type { FeedbackResponseDto } from './dto/feedback-response.dto.js';
import { FeedbackRepository } from './feedback.repository.js';
import { requestIdsOf, resolveFeedback } from './judgments.js';

const BODY: ArgumentMetadata = { type: 'body', metatype: FeedbackRequestDto };

export interface FeedbackAnswer {
  readonly body: FeedbackResponseDto;
  readonly headers: Record<string, string>;
}

/**
 * POST /feedback: the key (401) and the rate limit (429) as every data-plane call, then the body (400), then the
 * feedback is stored under the key's organization with the judgments it makes about that organization's kept
 * searches. Free: nothing is reserved or charged. Ids of other organizations' results resolve to nothing, exactly
 * as unknown ones do, so a caller learns nothing about them.
 */
@Injectable()
export class FeedbackService {
  private readonly validation = createValidationPipe();

  constructor(
    private readonly pipeline: MeteringPipeline,
    private readonly results: SearchResultLog,
    private readonly feedback: FeedbackRepository,
  ) {}

  /** `body`: null when the request's body is not a JSON object. */
  async submit(
    apiKey: string | null,
    body: Record<string, unknown> | null,
    requestId: string,
  ): Promise<FeedbackAnswer> {
    const startedAt = performance.now();
    const { caller, headers } = await this.pipeline.authenticateAndLimit(apiKey);
    try {
      if (!body) throw new BadRequestException(errorBody('The body must be a JSON object.'));
      const given = (await this.validation.transform(body, BODY)) as FeedbackRequestDto;
      const { key } = caller;
      const searches = await this.results.find(key.orgId, requestIdsOf(given));
      const resolved = resolveFeedback(given, searches);
      const feedbackId = randomUUID();
      await this.feedback.insert({
        feedbackId,
        orgId: key.orgId,
        projectId: key.projectId,
        keyId: key.keyId,
        requestId: resolved.searchRequestId,
        // The DTO instance, less what class-transformer would add: plain JSON of the validated fields.
        feedback: JSON.parse(JSON.stringify(given)) as FeedbackRequestDto,
        judgments: resolved.judgments,
      });
      return {
        headers,
        body: {
          success: true,
          feedback_id: feedbackId,
          search_request_id: resolved.searchRequestId,
          ignored_ids: resolved.ignoredIds,
          response_time: Math.round(performance.now() - startedAt) / 1000,
          request_id: requestId,
        },
      };
    } catch (error) {
      throw MeteringException.withHeaders(error, headers);
    }
  }
}
