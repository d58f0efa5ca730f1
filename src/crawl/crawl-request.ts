import { BadRequestException } from '@nestjs/common';
import type { TargetScreen } from '../fetch/target-screen.js';
import { errorBody } from '../http/error-body.js';
import { MAX_PAGES_PER_CALL } from '../metering/metered-operation.js';
import { CrawlFilters } from './crawl-filters.js';
import type { MapRequestDto } from './dto/map-request.dto.js';
import { DEFAULTS } from './dto/map-request.dto.js';
import type { FrontierPlan, FrontierStop } from './frontier/frontier.js';
import { parseStartUrl } from '../documents/normalize-url.js';
import { RelevanceRanker } from './relevance.js';
import { rejectFailedStart } from './start-failure.js';

/** Time kept back from the caller's `timeout` to build and send the response. */
const RESPONSE_RESERVE_MS = 2_000;

export interface ResolvedRequest {
  /** As the caller wrote it (trimmed): the response's `base_url`. */
  readonly baseUrl: string;
  /** The URL the run starts from (normalized, with a scheme). */
  readonly startUrl: string;
  readonly instructions: string | null;
  plan(mode: FrontierPlan['mode']): FrontierPlan;
}

/**
 * A validated map/crawl body turned into a frontier plan. A start URL we will not fetch is a 400: an IP literal or a
 * name the SSRF rules refuse, or a name that resolves to a refused address. A name that does not resolve is a start
 * page that cannot be read (502), said before any fetch.
 */
export async function resolveRequest(
  body: MapRequestDto,
  screen: TargetScreen,
  startedAt: number,
): Promise<ResolvedRequest> {
  const startUrl = parseStartUrl(body.url);
  if (!startUrl) throw badRequest(`url is not a valid http(s) URL: ${JSON.stringify(body.url.slice(0, 200))}`);
  const verdict = await screen.judge(new URL(startUrl));
  if (verdict.kind === 'refused') throw badRequest(`url is not allowed: ${verdict.refusal.message}`);
  if (verdict.kind === 'unresolved') rejectFailedStart(verdict.error, startUrl, body.url.trim());
  const instructions = body.instructions?.trim() || null;
  const timeoutMs = (body.timeout ?? DEFAULTS.timeoutSeconds) * 1000;
  const deadline = startedAt + timeoutMs - Math.min(RESPONSE_RESERVE_MS, timeoutMs * 0.05);
  return {
    baseUrl: body.url.trim(),
    startUrl,
    instructions,
    plan: (mode) => ({
      startUrl,
      maxDepth: body.max_depth ?? DEFAULTS.maxDepth,
      maxBreadth: body.max_breadth ?? DEFAULTS.maxBreadth,
      limit: Math.min(body.limit ?? DEFAULTS.limit, MAX_PAGES_PER_CALL),
      filters: new CrawlFilters(startUrl, {
        selectPaths: body.select_paths,
        excludePaths: body.exclude_paths,
        selectDomains: body.select_domains,
        excludeDomains: body.exclude_domains,
        allowExternal: body.allow_external ?? true,
      }),
      categories: body.categories ?? [],
      ranker: instructions ? new RelevanceRanker(instructions) : null,
      deadline,
      mode,
    }),
  };
}

export function badRequest(message: string): BadRequestException {
  return new BadRequestException(errorBody(message));
}

/** Seconds, two decimals, as Tavily reports `response_time`. */
export function responseTime(startedAt: number): number {
  return Math.round((Date.now() - startedAt) / 10) / 100;
}

/** A response's `cut_short`: which limit stopped the run (`timeout` or `limit`) and how many pages it left. */
export function cutShort(stop: FrontierStop): { readonly by: FrontierStop['by']; readonly pages_left: number } {
  return { by: stop.by, pages_left: stop.pagesLeft };
}
