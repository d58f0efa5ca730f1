import { Inject, Injectable } from '@nestjs/common';
import type { WorkOutcome } from '../metering/metering-pipeline.js';
import type { DescribedImageDto, SearchResponseDto, SearchResultDto } from './dto/search-response.dto.js';

type SearchImage = string | DescribedImageDto;
import { AnswerService } from './answer/answer.service.js';
import { COUNTRY_BOOST, isFromCountry } from './country.js';
import type { SearchRequestDto } from './dto/search-request.dto.js';
import {
  type HitImage,
  type ProviderSearchRequest,
  SEARCH_PROVIDERS,
  type SearchHit,
  type SearchProvider,
} from './providers/search-provider.port.js';
import { type ResponseOptions, resolveSearch } from './search-request.js';
import { markdownToText } from './text/markdown-text.js';

/** Top-level `images`: at most this many, from the results in rank order. */
const MAX_TOP_IMAGES = 10;

/**
 * POST /search: every provider is asked, hits are merged by canonical URL (the best score wins; fields missing from
 * it are taken from the other), ranked, cut to max_results and shaped as Tavily's response. A provider's failure
 * fails the search (the metering pipeline then bills nothing).
 */
@Injectable()
export class SearchService {
  constructor(
    @Inject(SEARCH_PROVIDERS) private readonly providers: readonly SearchProvider[],
    private readonly answers: AnswerService,
  ) {}

  async search(body: SearchRequestDto): Promise<WorkOutcome<SearchResponseDto>> {
    const startedAt = performance.now();
    const { provider, response } = resolveSearch(body);
    const hits = await this.hits(provider);
    const shown = hits.slice(0, response.maxResults);
    // The answer quotes the results shown (with max_results 0, the few retrieved for it alone).
    const answer = response.answer
      ? await this.answers.answer(provider.query, shown.length > 0 ? shown : hits, response.answer)
      : null;
    const results = shown.map((hit) => resultOf(hit, provider, response));
    return {
      body: {
        query: body.query,
        follow_up_questions: null,
        answer,
        images: response.images ? topImages(shown, response.imageDescriptions) : [],
        results,
        ...(response.autoParameters ? { auto_parameters: response.autoParameters } : {}),
        response_time: Math.round(performance.now() - startedAt) / 1000,
      },
      counts: { results: results.length },
    };
  }

  /** Every provider's hits, merged by URL and ranked. */
  async hits(request: ProviderSearchRequest): Promise<SearchHit[]> {
    const lists = await Promise.all(this.providers.map((p) => p.search(request)));
    const byUrl = new Map<string, SearchHit>();
    for (const hit of lists.flat()) {
      const score =
        request.country && isFromCountry(hit.url, request.country) ? Math.min(1, hit.score * COUNTRY_BOOST) : hit.score;
      const boosted = score === hit.score ? hit : { ...hit, score };
      const seen = byUrl.get(boosted.url);
      byUrl.set(boosted.url, seen ? mergeHits(seen, boosted) : boosted);
    }
    return [...byUrl.values()].sort((a, b) => b.score - a.score || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  }
}

function mergeHits(a: SearchHit, b: SearchHit): SearchHit {
  const [best, other] = b.score > a.score ? [b, a] : [a, b];
  return {
    ...best,
    content: best.content || other.content,
    rawContent: best.rawContent ?? other.rawContent,
    publishedDate: best.publishedDate ?? other.publishedDate,
    favicon: best.favicon ?? other.favicon,
    images: best.images.length > 0 ? best.images : other.images,
  };
}

function imageOf(image: HitImage, withDescription: boolean): string | { url: string; description: string } {
  return withDescription ? { url: image.url, description: image.description ?? '' } : image.url;
}

function resultOf(hit: SearchHit, request: ProviderSearchRequest, options: ResponseOptions): SearchResultDto {
  const raw =
    hit.rawContent === null ? null : options.rawContent === 'text' ? markdownToText(hit.rawContent) : hit.rawContent;
  return {
    title: hit.title,
    url: hit.url,
    content: hit.content,
    score: hit.score,
    raw_content: options.rawContent ? raw : null,
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
