import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { JsonOnly } from '../http/json-only.js';
import { takeApiKey } from '../metering/take-api-key.js';
import { ApiFreeKeyResponses } from '../http/openapi/api-route.decorators.js';
import { FeedbackRequestDto } from './dto/feedback-request.dto.js';
import { FeedbackResponseDto } from './dto/feedback-response.dto.js';
import { FeedbackService } from './feedback.service.js';

/** POST /feedback (@tavily/core's `feedback()`): free, rate limited like every data-plane call. */
@Controller()
@ApiTags('Data plane')
export class FeedbackController {
  constructor(private readonly feedback: FeedbackService) {}

  @Post('feedback')
  @JsonOnly()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Feedback on search results: which were used, how good they were (free, rate limited)',
    description:
      "Stored under the key's organization. Result ids (`used_ids`, `urls_scores[].id`) and `request_id` resolve " +
      "to the organization's own searches of the last SEARCH_RESULT_RETENTION_DAYS; the ids that do not are listed " +
      'in `ignored_ids`. Any key of the organization may send it; nothing is billed.',
  })
  @ApiBody({ type: FeedbackRequestDto })
  @ApiFreeKeyResponses(FeedbackResponseDto)
  async submit(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<FeedbackResponseDto> {
    const { apiKey, body } = takeApiKey(request);
    // takeApiKey answers a fresh {} for a body that is not a JSON object (none, an array, a string).
    const answer = await this.feedback.submit(apiKey, body === request.body ? body : null, request.id);
    void reply.headers(answer.headers);
    return answer.body;
  }
}
