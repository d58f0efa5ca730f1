import { Body, Controller, Post } from '@nestjs/common';
import { CRAWL, MAP } from '../metering/metered-operation.js';
import { Metered } from '../metering/metered.decorator.js';
import type { WorkOutcome } from '../metering/pipeline/metering-pipeline.js';
import { CrawlService } from './crawl.service.js';
import { CrawlRequestDto } from './dto/crawl-request.dto.js';
import { CrawlResponseDto, MapResponseDto } from './dto/crawl-response.dto.js';
import { MapRequestDto } from './dto/map-request.dto.js';
import { MapService } from './map.service.js';
import { ApiTags } from '@nestjs/swagger';
import { JsonOnly } from '../http/json-only.js';

/** POST /map and POST /crawl, behind the metering pipeline (priced per mapped page / per extracted page). */
@Controller()
@ApiTags('Data plane')
export class CrawlController {
  constructor(
    private readonly maps: MapService,
    private readonly crawls: CrawlService,
  ) {}

  /** Map a site: its URLs, breadth first; 1 credit per 10 pages (with instructions: 2) */
  @Post('map')
  @JsonOnly()
  @Metered(MAP, MapResponseDto)
  map(@Body() body: MapRequestDto): Promise<WorkOutcome<MapResponseDto>> {
    return this.maps.map(body);
  }

  /** Crawl a site: map and extract every page; priced as extract per extracted page */
  @Post('crawl')
  @JsonOnly()
  @Metered(CRAWL, CrawlResponseDto)
  crawl(@Body() body: CrawlRequestDto): Promise<WorkOutcome<CrawlResponseDto>> {
    return this.crawls.crawl(body);
  }
}
