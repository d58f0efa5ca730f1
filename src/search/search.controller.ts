import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { SEARCH } from '../metering/metered-operation.js';
import { Metered } from '../metering/metered.decorator.js';
import type { WorkOutcome } from '../metering/metering-pipeline.js';
import { SearchRequestDto } from './dto/search-request.dto.js';
import { SearchResponseDto } from './dto/search-response.dto.js';
import { SearchService } from './search.service.js';
import { ApiTags } from '@nestjs/swagger';
import { JsonOnly } from '../http/json-only.js';

/** POST /search, behind the metering pipeline (basic 1 credit, advanced 2, answers +1 / +2). */
@Controller()
@ApiTags('Data plane')
export class SearchController {
  constructor(private readonly searches: SearchService) {}

  /** Search the web: Tavily's request and response; 1 credit (advanced: 2), include_answer +1 (advanced: +2) */
  @Post('search')
  @JsonOnly()
  @HttpCode(200)
  @Metered(SEARCH, SearchResponseDto)
  search(@Body() body: SearchRequestDto): Promise<WorkOutcome<SearchResponseDto>> {
    return this.searches.search(body);
  }
}
