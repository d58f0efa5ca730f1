import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { JsonOnly } from '../http/json-only.js';
import { takeApiKey } from '../metering/take-api-key.js';
import { ApiFreeKeyResponses } from '../http/openapi/api-route.decorators.js';
import { LogsRequestDto } from './dto/logs-request.dto.js';
import { LogsResponseDto } from './dto/logs-response.dto.js';
import { LogsService } from './logs.service.js';

/** POST /logs (Tavily's account route): the organization's request log read with an API key, free, rate limited. */
@Controller()
@ApiTags('Data plane')
export class LogsController {
  constructor(private readonly logs: LogsService) {}

  @Post('logs')
  @JsonOnly()
  @HttpCode(200)
  @ApiOperation({
    summary: "The calls of the key's organization, newest first (free, rate limited)",
    description:
      'Tavily-compatible. Any key of the organization reads the calls of all its keys (`filter_by_api_key: true`: ' +
      "its own only), refused ones included, of the last REQUEST_LOG_RETENTION_DAYS. An entry never holds the call's " +
      'input or output (query, URLs, results) nor the key: its display prefix only. `cursor` and `next_cursor` page ' +
      "further; they are not in Tavily's API.",
  })
  @ApiBody({ type: LogsRequestDto, required: false })
  @ApiFreeKeyResponses(LogsResponseDto)
  async list(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<LogsResponseDto> {
    const { apiKey, body } = takeApiKey(request);
    // No body at all asks for the defaults; a body that is not a JSON object (an array, a string) is refused.
    const given = request.body === undefined || request.body === null || body === request.body ? body : null;
    const answer = await this.logs.logs(apiKey, given, request.id);
    void reply.headers(answer.headers);
    return answer.body;
  }
}
