import { Injectable, Inject } from '@nestjs/common';
import type { WorkOutcome } from '../metering/pipeline/metering-pipeline.js';
import type { DescribedImageDto, SearchResponseDto, SearchResultDto } from './dto/search-response.dto.js';
import { AnswerService } from './answer/answer.service.js';
import { domainMatcher } from './index/domain-patterns.js';
import type { SearchRequestDto } from './dto/search-request.dto.js';
import { LOCAL_PROVIDER, countryBoosted, mergeResultLists } from './result-lists.js';
import { askProviders } from './provider-lists.js';
import {
  type HitImage,
  type ProviderSearchRequest,
  SEARCH_PROVIDERS,
  type SearchHit,
  type SearchProvider,
} from './providers/search-provider.port.js';
import type { ContentSource } from './ranking/rank-candidate.js';
import { ReadAndRank } from './read/read-and-rank.js';
import { resultId } from './result-log/result-ids.js';
import { type SearchOrigin, SearchResultLog } from './result-log/search-result-log.js';
import { type ResolvedSearch, type ResponseOptions, resolveSearch } from './search-request.js';
import { markdownToText } from './text/markdown-text.js';
import { SearchDeadline } from './load/search-deadline.js';
import { SearchClock } from './load/search-clock.js';
import { SearchAdmission } from './load/search-admission.js';
import { searchOverloaded } from './load/search-overloaded.js';

type SearchImage = string | DescribedImageDto;

/** Top-level `images`: at most this many, from the results in rank order. */
const MAX_TOP_IMAGES = 10;
/** include_domains_mode 'prefer': how much more a hit from a listed site scores. */
const PREFER_BOOST = 1.5;

/** A hit as shown: its content, score and (when upstream pages are read) where the content comes from. */
interface Shown {
  readonly hit: SearchHit;
  readonly source: ContentSource | null;
}

/**
 * POST /search. With the local index alone, its ranking as it is. With upstream providers, the search reads the web:
 * the depth's plan (read/read-plan.ts) says how many upstream hits are fetched and extracted, under which deadline,
 * and every candidate, local or upstream, is ranked on one scale from its text (ReadAndRank). A provider's failure
 * fails the search only when no other provider has hits (provider-lists.ts); failed page reads are free and only
 * leave the engine's snippet in place.
 */
@Injectable()
export class SearchService {
  private readonly readsUpstream: boolean;

  constructor(
    @Inject(SEARCH_PROVIDERS) private readonly providers: readonly SearchProvider[],
    private readonly answers: AnswerService,
    private readonly reading: ReadAndRank,
    private readonly resultLog: SearchResultLog,
    private readonly admission: SearchAdmission,
  ) {
    this.readsUpstream = providers.some((p) => p.name !== LOCAL_PROVIDER);
  }

  /**
   * `origin` names the caller and the request: each result's id, and where its feedback will find it. `clock`'s
   * arrival (when the request arrived, SearchAdmission) starts the depth's answer budget: the engines are asked and
   * the pages read until it less the node's reserve for what follows the reading, whatever came before the work.
   */
  async search(
    body: SearchRequestDto,
    origin: SearchOrigin,
    clock = new SearchClock(),
  ): Promise<WorkOutcome<SearchResponseDto>> {
    const startedAt = performance.now();
    const now = new Date();
    let resolved = resolveSearch(body, now);
    const deadline = new SearchDeadline(clock, resolved.read.answerBudgetMs, this.admission.answerReserveMs);
    let candidates = await this.candidates(resolved, deadline);
    if (candidates.length === 0 && body.auto_parameters && !deadline.passed) {
      // auto_parameters must not make a search worse than none: when its choices (a news topic, a time range the
      // index cannot honour) find nothing, the caller's own parameters are searched.
      const plain = resolveSearch(body, now, false);
      if (
        plain.provider.topic !== resolved.provider.topic ||
        plain.provider.from?.getTime() !== resolved.provider.from?.getTime()
      ) {
        resolved = plain;
        candidates = await this.candidates(plain, deadline);
      }
    }
    const { provider, response } = resolved;
    const shown = candidates.slice(0, response.maxResults);
    const shownHits = shown.map((s) => s.hit);
    // The answer quotes the results shown (with max_results 0, the few retrieved for it alone).
    const written = response.answer
      ? await this.answers.answer(
          provider.query,
          shownHits.length > 0 ? shownHits : candidates.slice(0, provider.maxResults).map((s) => s.hit),
          response.answer,
        )
      : null;
    const answer = written?.trim() ? written : null;
    const results = shown.map((s, i) => resultOf(s, resultId(origin.requestId, i + 1), provider, response));
    this.resultLog.record(origin, {
      query: body.query,
      depth: provider.depth,
      results: results.map((r) => ({ id: r.id, url: r.url, title: r.title, score: r.score })),
    });
    return {
      body: {
        query: body.query,
        follow_up_questions: null,
        answer,
        images: response.images ? topImages(shownHits, response.imageDescriptions) : [],
        results,
        ...(response.autoParameters ? { auto_parameters: response.autoParameters } : {}),
        response_time: Math.round(performance.now() - startedAt) / 1000,
      },
      // An answer asked for and not given is not billed (the surcharge is priced from this count).
      counts: { results: results.length, ...(response.answer ? { answers: answer === null ? 0 : 1 } : {}) },
    };
  }

  private async candidates(resolved: ResolvedSearch, deadline: SearchDeadline): Promise<Shown[]> {
    // The local index alone is not cut at the deadline: it has no snippet to stand for a late answer, and a late
    // answer is better than none.
    if (!this.readsUpstream) return preferred(await this.localOnly(resolved.provider), resolved.response.preferDomains);
    // Its whole budget went by before the providers could be asked (the node is too busy): a 503 that bills nothing.
    if (deadline.passed) throw searchOverloaded('The search waited past its time budget before it could start; retry.');
    // A provider that has not answered by the deadline is left out (none answered: a 502 naming them).
    const withDeadline = { ...resolved, provider: { ...resolved.provider, signal: deadline.signal } };
    return preferred(await this.readAndRank(withDeadline, deadline), resolved.response.preferDomains);
  }

  /** Every provider's hits, merged by URL and ranked by their own scores (research's searches). */
  async hits(request: ProviderSearchRequest): Promise<SearchHit[]> {
    const lists = await askProviders(this.providers, request);
    const boosted = mergeResultLists(lists, { enginesFirst: false }).map(({ hit }) => {
      const score = countryBoosted(hit.score, hit.url, request.country);
      return score === hit.score ? hit : { ...hit, score };
    });
    return boosted.sort((a, b) => b.score - a.score || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  }

  private async localOnly(request: ProviderSearchRequest): Promise<Shown[]> {
    return (await this.hits(request)).map((hit) => ({ hit, source: null }));
  }

  /** More candidates than shown are asked for, so that ranking has something to choose from. */
  private async readAndRank({ provider, read }: ResolvedSearch, deadline: SearchDeadline): Promise<Shown[]> {
    const request = { ...provider, maxResults: Math.max(provider.maxResults, read.candidates) };
    const ranked = await this.reading.rank(() => askProviders(this.providers, request), request, read, deadline);
    return ranked.map((r) => ({
      hit: { ...r.candidate.hit, content: r.content, score: r.score },
      source: r.candidate.source,
    }));
  }
}

/**
 * include_domains_mode 'prefer': hits from the listed sites score PREFER_BOOST times higher (at most 1, and first
 * among equals), the others stay.
 */
function preferred(candidates: Shown[], domains: readonly string[]): Shown[] {
  const matches = domainMatcher(domains);
  if (!matches) return candidates;
  return candidates
    .map((shown) => {
      const prefer = matches(shown.hit.url);
      const score = prefer ? Math.min(1, shown.hit.score * PREFER_BOOST) : shown.hit.score;
      return { shown: prefer ? { ...shown, hit: { ...shown.hit, score } } : shown, prefer };
    })
    .sort((a, b) => b.shown.hit.score - a.shown.hit.score || Number(b.prefer) - Number(a.prefer))
    .map((entry) => entry.shown);
}

function imageOf(image: HitImage, withDescription: boolean): string | { url: string; description: string } {
  return withDescription ? { url: image.url, description: image.description ?? '' } : image.url;
}

function resultOf(
  { hit, source }: Shown,
  id: string,
  request: ProviderSearchRequest,
  options: ResponseOptions,
): SearchResultDto {
  const raw =
    hit.rawContent === null ? null : options.rawContent === 'text' ? markdownToText(hit.rawContent) : hit.rawContent;
  return {
    id,
    title: hit.title,
    url: hit.url,
    content: hit.content,
    score: hit.score,
    raw_content: options.rawContent ? raw : null,
    ...(source ? { content_source: source } : {}),
    ...(options.favicon ? { favicon: hit.favicon } : {}),
    ...(request.topic === 'news' ? { published_date: hit.publishedDate ? hit.publishedDate.toUTCString() : null } : {}),
    ...(options.images ? { images: hit.images.map((image) => imageOf(image, options.imageDescriptions)) } : {}),
  };
}

function topImages(hits: readonly SearchHit[], withDescriptions: boolean): SearchImage[] {
  const seen = new Set<string>();
  const images: SearchImage[] = [];
  for (const hit of hits) {
    for (const image of hit.images) {
      if (seen.has(image.url)) continue;
      seen.add(image.url);
      images.push(imageOf(image, withDescriptions));
      if (images.length >= MAX_TOP_IMAGES) return images;
    }
  }
  return images;
}
