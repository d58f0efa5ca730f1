import { Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { takeApiKey } from '../metering/take-api-key.js';
import { ResearchQueryDto } from './dto/research-query.dto.js';
import { ResearchService } from './research.service.js';
import { ResearchStreamService } from './stream/research-stream.service.js';

/**
 * POST /research: 200 with the pending task (Tavily documents 201, but its Python client accepts only 200 here),
 * or with `stream: true` a Server-Sent Events stream. GET /research/{request_id}: 202 while the task is pending or
 * in progress, 200 once it completed or failed, 404 for an unknown task or another organization's.
 */
@Controller()
export class ResearchController {
  constructor(
    private readonly research: ResearchService,
    private readonly streams: ResearchStreamService,
  ) {}

  @Post('research')
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
