import { Inject, Injectable } from '@nestjs/common';
import { AddressPolicy } from '../fetch/address-policy.js';
import { FETCHER, type Fetcher, ROBOTS_POLICY, type RobotsPolicy } from '../fetch/fetcher.port.js';
import { HostScheduler } from '../fetch/host-scheduler.js';
import type { WorkOutcome } from '../metering/metering-pipeline.js';
import type { MapResponseDto } from './dto/crawl-response.dto.js';
import { cutShort, resolveRequest, responseTime } from './crawl-request.js';
import type { MapRequestDto } from './dto/map-request.dto.js';
import { Frontier } from './frontier.js';
import { linkVisitor } from './link-visitor.js';
import { rejectFailedStart } from './start-failure.js';

/**
 * POST /map: the URLs of a site, found by following links (fetched, not extracted) and reading its sitemaps. A map cut
 * short by its timeout or its limit says so (`cut_short`), as a crawl does.
 */
@Injectable()
export class MapService {
  private readonly frontier: Frontier;

  constructor(
    @Inject(FETCHER) private readonly fetcher: Fetcher,
    @Inject(ROBOTS_POLICY) robots: RobotsPolicy,
    scheduler: HostScheduler,
    private readonly addresses: AddressPolicy,
  ) {
    this.frontier = new Frontier(fetcher, robots, scheduler);
  }

  async map(body: MapRequestDto): Promise<WorkOutcome<MapResponseDto>> {
    const startedAt = Date.now();
    const request = resolveRequest(body, this.addresses, startedAt);
    const outcome = await this.frontier.run(request.plan('map'), linkVisitor(this.fetcher));
    if (outcome.pages.length === 0) rejectFailedStart(outcome.startError, request.startUrl, request.baseUrl);
    const results = outcome.pages.map((page) => page.url);
    return {
      body: {
        base_url: request.baseUrl,
        results,
        ...(outcome.stop ? { cut_short: cutShort(outcome.stop) } : {}),
        response_time: responseTime(startedAt),
      },
      counts: { pages: results.length },
    };
  }
}
