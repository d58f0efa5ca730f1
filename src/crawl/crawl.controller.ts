import { Body, Controller, Post } from '@nestjs/common';
import { CRAWL, MAP } from '../metering/metered-operation.js';
import { Metered } from '../metering/metered.decorator.js';
import type { WorkOutcome } from '../metering/metering-pipeline.js';
import { CrawlService } from './crawl.service.js';
import { CrawlRequestDto } from './dto/crawl-request.dto.js';
import { MapRequestDto } from './dto/map-request.dto.js';
import { MapService } from './map.service.js';

/** POST /map and POST /crawl, behind the metering pipeline (priced per mapped page / per extracted page). */
@Controller()
export class CrawlController {
  constructor(
    private readonly maps: MapService,
    private readonly crawls: CrawlService,
  ) {}

  @Post('map')
  @Metered(MAP)
  map(@Body() body: MapRequestDto): Promise<WorkOutcome> {
    return this.maps.map(body);
  }

  @Post('crawl')
  @Metered(CRAWL)
  crawl(@Body() body: CrawlRequestDto): Promise<WorkOutcome> {
    return this.crawls.crawl(body);
  }
}
