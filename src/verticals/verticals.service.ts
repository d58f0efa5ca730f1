import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { FETCHER, type Fetcher } from '../fetch/fetcher.port.js';
import { errorBody } from '../http/error-body.js';
import { createValidationPipe } from '../http/validation.pipe.js';
import type { WorkOutcome } from '../metering/pipeline/metering-pipeline.js';
import { UPSTREAM_CLIENTS, type UpstreamClients } from '../search/upstream/index.js';
import { isRecord } from '../search/upstream/json-shape.js';
import { type TimeRange, countryCode, rangeStart } from '../search/upstream/upstream-text.js';
import { DEFAULT_VERTICAL_MAX_RESULTS, VerticalRequestDto } from './dto/vertical-request.dto.js';
import { verticalSearch } from './families/index.js';
import type { VerticalSources } from './families/vertical-family.js';
import { LocalDocuments } from './local/local-documents.js';
import type { VerticalRequest } from './vertical-request.js';
import type { VerticalResults } from './vertical-results.js';
import { VERTICALS, type VerticalName, isVertical } from './verticals.js';
import type { VerticalResponse } from './dto/vertical-response.dto.js';

const TIME_RANGES: Record<string, TimeRange> = {
  day: 'day',
  d: 'day',
  week: 'week',
  w: 'week',
  month: 'month',
  m: 'month',
  year: 'year',
  y: 'year',
};

/**
 * POST /search/{vertical}: the vertical's providers are asked together — the local documents index (structured
 * data), the YouTube transcript reader, and the configured upstreams (SearXNG, Brave, SerpAPI) — and their records are
 * merged, de-duplicated by URL (or the vertical's own key), and cut at max_results. Any provider's failure fails the
 * call (a 502 for upstreams, which the metering pipeline does not bill) and cancels the others.
 */
@Injectable()
export class VerticalsService {
  private readonly validation = createValidationPipe();

  private readonly sources: VerticalSources;

  constructor(
    local: LocalDocuments,
    @Inject(UPSTREAM_CLIENTS) upstream: UpstreamClients,
    @Inject(FETCHER) fetcher: Fetcher,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.sources = { local, upstream, fetcher, config };
  }

  async search(vertical: string, rawBody: unknown): Promise<WorkOutcome<VerticalResponse>> {
    const startedAt = performance.now();
    if (!isVertical(vertical)) {
      throw new NotFoundException(
        errorBody(`Unknown vertical '${vertical.slice(0, 60)}'. Verticals: ${VERTICALS.join(', ')}.`),
      );
    }
    const request = await this.resolve(vertical, rawBody);
    const results = await this.results(request);
    return {
      body: {
        query: request.query,
        vertical,
        results,
        response_time: Math.round(performance.now() - startedAt) / 1000,
      },
      counts: { results: results.length },
    };
  }

  /** The body validated (400 with the first problem) and resolved to a VerticalRequest. */
  async resolve(vertical: VerticalName, rawBody: unknown, now = new Date()): Promise<VerticalRequest> {
    if (rawBody !== undefined && rawBody !== null && !isRecord(rawBody)) {
      throw new BadRequestException(errorBody('The request body must be a JSON object'));
    }
    const body = (await this.validation.transform(rawBody ?? {}, {
      type: 'body',
      metatype: VerticalRequestDto,
    })) as VerticalRequestDto;
    let query = body.query?.trim() ?? '';
    if (vertical === 'youtube_transcript' && !query && body.url) query = body.url.trim();
    if (!query) {
      throw new BadRequestException(
        errorBody(
          vertical === 'youtube_transcript' ? 'query (a YouTube video URL or id) is required' : 'query is required',
        ),
      );
    }
    const country = body.country ? countryCode(body.country) : null;
    if (body.country && !country) throw new BadRequestException(errorBody(`country '${body.country}' is not known`));
    const timeRange = body.time_range ? TIME_RANGES[body.time_range]! : null;
    return {
      vertical,
      query,
      maxResults: body.max_results ?? DEFAULT_VERTICAL_MAX_RESULTS,
      country,
      language: body.language?.replace('_', '-') ?? null,
      location: body.location?.trim() ?? null,
      timeRange,
      from: timeRange ? rangeStart(timeRange, now) : null,
      listingType: body.listing_type ?? null,
      now,
    };
  }

  /** The records of the request's vertical, from the family that answers it (families/index.ts). */
  private results(request: VerticalRequest): Promise<VerticalResults[VerticalName][]> {
    const search = verticalSearch(request.vertical);
    if (!search) throw new Error(`No vertical family answers '${request.vertical}'`);
    return search(request, this.sources);
  }
}
