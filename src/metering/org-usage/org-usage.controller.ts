import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorResponseDto } from '../../http/dto/error-response.dto.js';
import { JsonOnly } from '../../http/json-only.js';
import { ApiFreeKeyResponses } from '../../http/openapi/api-route.decorators.js';
import { takeApiKey } from '../take-api-key.js';
import { OrgUsageRequestDto } from './dto/org-usage-request.dto.js';
import { OrgUsageResponseDto } from './dto/org-usage-response.dto.js';
import { OrgUsageService } from './org-usage.service.js';

/** POST /org-usage (Tavily's account route): an organization's usage per key, with its owner's key; free. */
@Controller()
@ApiTags('Data plane')
export class OrgUsageController {
  constructor(private readonly orgUsage: OrgUsageService) {}

  @Post('org-usage')
  @JsonOnly()
  @HttpCode(200)
  @ApiOperation({
    summary: "The organization's usage per key and endpoint over a range of days (owner's key; free, rate limited)",
    description:
      "Tavily-compatible. The key must be an owner's: a live key created by a user who is an owner of its " +
      'organization (403 for any other key). `organization_name` must be the exact name of that organization ' +
      '(404 otherwise). Figures come from the usage read models: every key, live and test; `paygo_cost_usd` is 0.',
  })
  @ApiBody({ type: OrgUsageRequestDto })
  @ApiFreeKeyResponses(OrgUsageResponseDto, [
    { status: 403, description: "The key is not an owner's live key.", type: ErrorResponseDto },
    {
      status: 404,
      description: "`organization_name` is not the exact name of the key's organization.",
      type: ErrorResponseDto,
    },
  ])
  async usage(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OrgUsageResponseDto> {
    const { apiKey, body } = takeApiKey(request);
    // takeApiKey answers a fresh {} for a body that is not a JSON object (none, an array, a string).
    const answer = await this.orgUsage.usage(apiKey, body === request.body ? body : null);
    void reply.headers(answer.headers);
    return answer.body;
  }
}
