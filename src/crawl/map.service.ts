import { Inject, Injectable } from '@nestjs/common';
import { FETCHER, type Fetcher, ROBOTS_POLICY, type RobotsPolicy } from '../fetch/fetcher.port.js';
import { HostScheduler } from '../fetch/host-scheduler.js';
import { TargetScreen } from '../fetch/target-screen.js';
import type { WorkOutcome } from '../metering/pipeline/metering-pipeline.js';
import { PageCache } from '../page-cache/page-cache.js';
import { cachedLinkVisit } from './cached-visit.js';
import type { MapResponseDto } from './dto/crawl-response.dto.js';
import { cutShort, resolveRequest, responseTime } from './crawl-request.js';
import type { MapRequestDto } from './dto/map-request.dto.js';
import { Frontier, type PageCopies } from './frontier/frontier.js';
import { linkVisitor } from './link-visitor.js';
import { rejectFailedStart } from './start-failure.js';

/**
 * POST /map: the URLs of a site, found by following links (fetched, not extracted) and reading its sitemaps. A map cut
 * short by its timeout or its limit says so (`cut_short`), as a crawl does. Without instructions, a page the local
 * index holds with its links, read less than max_age ago, is taken from there instead of fetched (with instructions
 * the fetched page's headings and the headings above its links rank the results, which a copy does not keep).
 */
@Injectable()
export class MapService {
  private readonly frontier: Frontier;

  constructor(
    @Inject(FETCHER) private readonly fetcher: Fetcher,
    @Inject(ROBOTS_POLICY) robots: RobotsPolicy,
    scheduler: HostScheduler,
    private readonly screen: TargetScreen,
    private readonly cache: PageCache,
  ) {
    this.frontier = new Frontier(fetcher, robots, scheduler);
  }

  async map(body: MapRequestDto): Promise<WorkOutcome<MapResponseDto>> {
    const startedAt = Date.now();
    const request = await resolveRequest(body, this.screen, startedAt);
    const outcome = await this.frontier.run(request.plan('map'), linkVisitor(this.fetcher), this.copiesFor(body));
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

  private copiesFor(body: MapRequestDto): PageCopies<null> | undefined {
    if (body.instructions?.trim()) return undefined;
    const policy = this.cache.policyFor(body.max_age ?? undefined, false);
    if (policy.maxAgeSeconds === 0) return undefined;
    return async (url) => {
      const page = await this.cache.copyWithLinks(url, policy);
      return page ? cachedLinkVisit(page) : null;
    };
  }
}
