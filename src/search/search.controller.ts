import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { SEARCH } from '../metering/metered-operation.js';
import { Metered } from '../metering/metered.decorator.js';
import type { WorkOutcome } from '../metering/metering-pipeline.js';
import { SearchRequestDto } from './dto/search-request.dto.js';
import { SearchService } from './search.service.js';

/** POST /search, behind the metering pipeline (basic 1 credit, advanced 2, answers +1 / +2). */
@Controller()
export class SearchController {
  constructor(private readonly searches: SearchService) {}

  @Post('search')
  @HttpCode(200)
  @Metered(SEARCH)
  search(@Body() body: SearchRequestDto): Promise<WorkOutcome> {
    return this.searches.search(body);
  }
}
