import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { COUNTRY_BOOST, isFromCountry } from '../country.js';
import { mergeHits } from '../merge-hits.js';
import type { ProviderHits } from '../provider-lists.js';
import type { ProviderSearchRequest, SearchHit } from '../providers/search-provider.port.js';
import { EvidenceRanking } from '../ranking/evidence-ranking.js';
import { RERANKER, type RankCandidate, type RankedCandidate, type Reranker } from '../ranking/rank-candidate.js';
import { PAGE_READER, type PageReader, type ReadPage } from './page-reader.port.js';
import type { ReadPlan } from './read-plan.js';
import { readPages } from './read-pages.js';

/**
 * The hits of every provider, read and ranked as one list: the upstream hits the plan reads (the engines' best
 * first) are fetched and extracted at once under the plan's deadline, and every candidate (a page read, a page of
 * the local index, or an engine's snippet when its page was not read in time) is ranked from its text by
 * EvidenceRanking, then by the optional Reranker.
 */
@Injectable()
export class ReadAndRank {
  private readonly logger = new Logger('ReadAndRank');

  constructor(
    @Inject(PAGE_READER) private readonly reader: PageReader,
    private readonly ranking: EvidenceRanking,
    @Optional() @Inject(RERANKER) private readonly reranker: Reranker | null = null,
  ) {}

  async rank(
    lists: readonly ProviderHits[],
    request: ProviderSearchRequest,
    plan: ReadPlan,
  ): Promise<RankedCandidate[]> {
    const merged = mergeLists(lists);
    const toRead = plan.read
      ? merged
          .filter((m) => m.hit.rawContent === null)
          .slice(0, plan.candidates)
          .map((m) => m.hit.url)
      : [];
    const { pages } = await readPages(toRead, this.reader, plan.budgetMs, request.signal);
    const candidates = merged.map((m) => candidateOf(m.hit, m.rank, pages.get(m.hit.url), plan));
    let ranked = await this.ranking.rank(request.query, candidates, plan.chunks);
    if (this.reranker) {
      try {
        ranked = await this.reranker.rerank(request.query, ranked, request.signal);
      } catch (error) {
        this.logger.warn(`reranking failed, keeping the evidence ranking: ${(error as Error).message}`);
      }
    }
    return request.country ? boostCountry(ranked, request.country) : ranked;
  }
}

/** Hits merged by URL, each with its best rank in any list; in that order. */
function mergeLists(lists: readonly ProviderHits[]): { hit: SearchHit; rank: number }[] {
  const byUrl = new Map<string, { hit: SearchHit; rank: number }>();
  for (const list of lists) {
    list.hits.forEach((hit, rank) => {
      const seen = byUrl.get(hit.url);
      byUrl.set(hit.url, seen ? { hit: mergeHits(seen.hit, hit), rank: Math.min(seen.rank, rank) } : { hit, rank });
    });
  }
  return [...byUrl.values()].sort((a, b) => a.rank - b.rank);
}

function candidateOf(hit: SearchHit, rank: number, page: ReadPage | undefined, plan: ReadPlan): RankCandidate {
  if (page) {
    const enriched: SearchHit = {
      ...hit,
      title: hit.title && hit.title !== hit.url ? hit.title : page.title?.trim() || hit.title,
      rawContent: page.markdown,
      publishedDate: hit.publishedDate ?? page.publishedDate,
      favicon: hit.favicon ?? page.favicon,
      images: hit.images.length > 0 ? hit.images : page.images.map((url) => ({ url, description: null })),
    };
    return { hit: enriched, text: page.markdown, source: 'page', rank };
  }
  if (hit.rawContent !== null) {
    // Ultra-fast reads nothing, the local index's pages included: their snippet stands for them.
    return { hit, text: plan.read ? hit.rawContent : hit.content, source: 'index', rank };
  }
  return { hit, text: hit.content, source: 'snippet', rank };
}

function boostCountry(ranked: readonly RankedCandidate[], country: string): RankedCandidate[] {
  return ranked
    .map((r) =>
      isFromCountry(r.candidate.hit.url, country) ? { ...r, score: Math.min(1, r.score * COUNTRY_BOOST) } : r,
    )
    .sort((a, b) => b.score - a.score || a.candidate.rank - b.candidate.rank);
}
