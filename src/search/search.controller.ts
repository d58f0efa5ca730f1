import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { SEARCH } from '../metering/metered-operation.js';
import { Metered, MeteredCaller } from '../metering/metered.decorator.js';
import type { Caller, WorkOutcome } from '../metering/pipeline/metering-pipeline.js';
import { SearchRequestDto } from './dto/search-request.dto.js';
import { SearchResponseDto } from './dto/search-response.dto.js';
import { searchOrigin } from './result-log/search-origin.js';
import { SearchService } from './search.service.js';
import { searchClock } from './load/search-admission.js';
import { ApiTags } from '@nestjs/swagger';
import { JsonOnly } from '../http/json-only.js';
import { ErrorResponseDto, RateLimitErrorResponseDto } from '../http/dto/error-response.dto.js';
import { USAGE_HEADERS, headerRefs } from '../http/openapi/openapi-components.js';

/** POST /search, behind the metering pipeline (basic 1 credit, advanced 2, answers +1 / +2). */
@Controller()
@ApiTags('Data plane')
export class SearchController {
  constructor(private readonly searches: SearchService) {}

  /** Search the web: Tavily's request and response; 1 credit (advanced: 2), an answer returned +1 (advanced: +2) */
  @Post('search')
  @JsonOnly()
  @HttpCode(200)
  @Metered(SEARCH, SearchResponseDto, [
    {
      status: 502,
      description:
        "A search provider failed, or had not answered by the depth's deadline: `error` names it. Not billed; " +
        'retry, or use a shorter depth.',
      type: ErrorResponseDto,
      headers: headerRefs(...USAGE_HEADERS),
    },
    {
      status: 503,
      description:
        'Not billed. The node already holds SEARCH_MAX_IN_FLIGHT searches, or the search waited past its budget ' +
        'before its providers were asked: `Retry-After: 1` (and `retry_after`); retry at once elsewhere or shortly. ' +
        'Or a dependency is unavailable, or the charge could not be recorded: retry shortly.',
      type: RateLimitErrorResponseDto,
      headers: headerRefs('Retry-After'),
    },
  ])
  search(
    @Body() body: SearchRequestDto,
    @MeteredCaller() caller: Caller,
    @Req() request: FastifyRequest,
  ): Promise<WorkOutcome<SearchResponseDto>> {
    return this.searches.search(body, searchOrigin(caller, request.id), searchClock(request));
  }
}
