import { Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiSecurity,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorResponseDto, RateLimitErrorResponseDto } from '../http/dto/error-response.dto.js';
import { ApiMeteredResponses } from '../http/openapi/api-route.decorators.js';
import { SECURITY, USAGE_HEADERS, headerRefs } from '../http/openapi/openapi-components.js';
import { ResearchRequestDto } from './dto/research-request.dto.js';
import { ResearchSubmittedDto, ResearchTaskDto } from './dto/research-response.dto.js';
import { takeApiKey } from '../metering/take-api-key.js';
import { ResearchQueryDto } from './dto/research-query.dto.js';
import { ResearchService } from './research.service.js';
import { ResearchStreamService } from './stream/research-stream.service.js';
import { JsonOnly } from '../http/json-only.js';

/**
 * POST /research: 200 with the pending task (Tavily documents 201, but its Python client accepts only 200 here),
 * or with `stream: true` a Server-Sent Events stream. GET /research/{request_id}: 202 while the task is pending or
 * in progress, 200 once it completed or failed, 404 for an unknown task or another organization's.
 */
@Controller()
@ApiTags('Data plane')
export class ResearchController {
  constructor(
    private readonly research: ResearchService,
    private readonly streams: ResearchStreamService,
  ) {}

  @Post('research')
  @JsonOnly()
  @ApiOperation({
    summary: 'Submit a research task',
    description:
      'Runs in the background: plan sub-questions, search, read the best sources, write a cited report. 200 (not ' +
      '201: the Python client accepts only 200) with the pending task; with `stream: true`, a text/event-stream of ' +
      "progress. Reserves the model's most credits (mini 4, pro 18) and is charged what it ran once completed; a " +
      'failed task is not billed. Needs the `research` scope.',
  })
  @ApiBody({ type: ResearchRequestDto })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiMeteredResponses(ResearchSubmittedDto)
  async submit(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const { apiKey, body } = takeApiKey(request);
    const idempotencyKey = request.headers['idempotency-key'];
    const submitted = await this.research.submit(
      apiKey,
      body,
      typeof idempotencyKey === 'string' ? idempotencyKey : null,
      request.id,
    );
    const { response } = submitted;
    if (submitted.stream) return this.streams.follow(reply, submitted.requestId, submitted.model, response.headers);
    void reply.status(response.status).headers(response.headers).send(response.body);
  }

  @Get('research/:request_id')
  @ApiOperation({
    summary: 'A research task: status, report and sources',
    description: "Free, rate limited; needs the research scope. Another organization's task is a 404.",
  })
  @ApiSecurity(SECURITY.apiKeyBearer)
  @ApiSecurity(SECURITY.apiKeyHeader)
  @ApiParam({ name: 'request_id', description: 'The request_id POST /research answered.' })
  @ApiOkResponse({ description: 'Completed or failed.', type: ResearchTaskDto, headers: headerRefs(...USAGE_HEADERS) })
  @ApiAcceptedResponse({
    description: 'Pending or in progress.',
    type: ResearchTaskDto,
    headers: headerRefs(...USAGE_HEADERS),
  })
  @ApiUnauthorizedResponse({ description: 'Missing, malformed, unknown or revoked API key.', type: ErrorResponseDto })
  @ApiForbiddenResponse({ description: 'The key lacks the research scope.', type: ErrorResponseDto })
  @ApiNotFoundResponse({ description: "Research task not found (or another organization's).", type: ErrorResponseDto })
  @ApiTooManyRequestsResponse({
    description: 'Over the per-minute rate limit of the key.',
    type: RateLimitErrorResponseDto,
    headers: headerRefs(...USAGE_HEADERS, 'Retry-After'),
  })
  async find(
    @Req() request: FastifyRequest,
    @Param('request_id') requestId: string,
    @Query() query: ResearchQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const { apiKey } = takeApiKey(request);
    const found = await this.research.find(apiKey, requestId, query.include_usage === true);
    void reply.status(found.status).headers(found.headers);
    return found.body;
  }
}
