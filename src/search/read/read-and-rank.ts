import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { PageCache } from '../../page-cache/page-cache.js';
import type { ProviderHits } from '../provider-lists.js';
import type { ProviderSearchRequest, SearchHit } from '../providers/search-provider.port.js';
import { type MergedHit, countryBoosted, mergeResultLists } from '../result-lists.js';
import { EvidenceRanking } from '../ranking/evidence-ranking.js';
import { RERANKER, type RankCandidate, type RankedCandidate, type Reranker } from '../ranking/rank-candidate.js';
import type { QueryEvidence, TextEvidence, TextToRead } from '../ranking/text-evidence.js';
import { PAGE_READER, type PageReader, type ReadPage } from './page-reader.port.js';
import { ReadMetrics } from './read-metrics.js';
import type { ReadPlan } from './read-plan.js';
import { LateReads } from './late-reads.js';
import { readPages } from './read-pages.js';
import { EnoughRead } from './enough-read.js';
import type { SearchDeadline } from '../load/search-deadline.js';

/** Page reads going on past their search's deadline at most, across searches (see LateReads). */
const MAX_LATE_READS = 32;
/** How long a read may go on past its deadline: a page slower than that is taken for failed. */
const LATE_READ_LIMIT_MS = 5000;

/**
 * The hits of every provider, read and ranked as one list: an upstream hit whose page the page cache holds fresh
 * enough is taken from there; the others the plan reads (the engines' best first) are fetched and extracted at once
 * under the plan's deadline (cache_fallback: an older copy stands for a page not read in time), each page analysed
 * for the query as soon as it arrives, and every candidate (a page read, a page of the local index, or an engine's
 * snippet when its page was not read in time) is ranked from its text by EvidenceRanking, then by the optional
 * Reranker. The reading ends before the deadline once it has read enough (EnoughRead).
 */
@Injectable()
export class ReadAndRank {
  private readonly logger = new Logger('ReadAndRank');
  private readonly lateReads = new LateReads(MAX_LATE_READS, LATE_READ_LIMIT_MS);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(PAGE_READER) private readonly reader: PageReader,
    private readonly ranking: EvidenceRanking,
    private readonly metrics: ReadMetrics,
    private readonly cache: PageCache,
    @Optional() @Inject(RERANKER) private readonly reranker: Reranker | null = null,
  ) {}

  /**
   * `ask` gets the providers' lists; the query is analysed meanwhile. The reading ends by the plan's budget after the
   * engines answered, and by the search's deadline whenever they did (`deadline`: counted from the request's arrival).
   */
  async rank(
    ask: () => Promise<ProviderHits[]>,
    request: ProviderSearchRequest,
    plan: ReadPlan,
    deadline?: SearchDeadline,
  ): Promise<RankedCandidate[]> {
    const [lists, query] = await Promise.all([ask(), this.ranking.forQuery(request.query)]);
    const merged = mergeResultLists(lists, { enginesFirst: true });
    const byUrl = new Map(merged.map((m) => [m.hit.url, m]));
    // Upstream hits without a page: any may be in the page cache, the engines' best plan.candidates are read.
    const readable = plan.read ? merged.filter((m) => m.hit.rawContent === null).map((m) => m.hit.url) : [];
    const toRead = new Set(readable.slice(0, plan.candidates));
    if (plan.budgetMs > 0) this.reader.prepare?.([...toRead]);
    // The local index's copies first (one lookup for all): a fresh one stands for the read.
    const policy = this.cache.policyFor(plan.maxAgeSeconds ?? undefined, plan.cacheFallback);
    const cached = await this.cache.lookup(readable, policy);
    // A page whose read failed lately, or is still going past an earlier search's deadline, is not waited for
    // (again): its snippet, or an older copy, stands for it.
    const toFetch =
      plan.budgetMs > 0
        ? [...toRead].filter((url) => !cached.fresh.has(url) && !cached.failed.has(url) && !this.lateReads.has(url))
        : [];
    const enough = new EnoughRead(this.config.searchReadEnoughStrength, toFetch.length, plan.enoughShare);
    const pagesRead = new Map<string, { candidate: RankCandidate; text: Promise<TextEvidence[]> }>();
    const addPage = (url: string, page: ReadPage, source: 'page' | 'index' = 'page') => {
      const { hit, rank } = byUrl.get(url)!;
      const candidate = pageCandidate(hit, rank, page, source);
      const text = readAll(query, [candidate]);
      pagesRead.set(url, { candidate, text });
      if (enough.enabled) {
        const fetched = source === 'page';
        void text.then(([evidence]) => {
          try {
            enough.observe(this.ranking.strength(query, candidate, evidence!), fetched);
          } catch (error) {
            // Reading on to the deadline is always safe: never let this end the search, let alone the process.
            this.logger.warn(`could not weigh a page read for an early end: ${(error as Error).message}`);
          }
        }, ignore);
      }
    };
    for (const [url, page] of cached.fresh) addPage(url, page, 'index');
    // The texts already at hand (the local index's pages, the snippets not to be read) are analysed meanwhile.
    const known = merged
      .filter((m) => !toRead.has(m.hit.url) && !pagesRead.has(m.hit.url))
      .map((m) => otherCandidate(m, plan));
    const knownTexts = readAll(query, known);
    const started = performance.now();
    const budgetMs = Math.min(plan.budgetMs, deadline ? deadline.remainingMs() : Infinity);
    const outcome = await readPages(
      budgetMs > 0 ? toFetch : [],
      this.reader,
      budgetMs,
      request.signal ? [request.signal, enough.signal] : enough.signal,
      (url, page) => addPage(url, page),
      this.lateReads,
    );
    deadline?.workEnded();
    if (toFetch.length > 0) {
      const counts = { read: outcome.pages.size, failed: outcome.failures.size, late: outcome.late.size };
      const ended = outcome.late.size === 0 ? 'all' : enough.signal.aborted ? 'enough' : 'deadline';
      this.metrics.observe(plan.depth, counts, (performance.now() - started) / 1000, ended);
    }
    // cache_fallback: a page not read in time, from an older copy.
    for (const [url, page] of cached.stale) if (toRead.has(url) && !pagesRead.has(url)) addPage(url, page, 'index');
    // Pages not read in time: their snippets.
    const missed = merged
      .filter((m) => toRead.has(m.hit.url) && !pagesRead.has(m.hit.url))
      .map((m) => otherCandidate(m, plan));
    const read = [...pagesRead.values()];
    const candidates = [...known, ...read.map((r) => r.candidate), ...missed];
    const texts = [
      ...(await knownTexts),
      ...(await Promise.all(read.map((r) => r.text))).flat(),
      ...(await query.read(missed.map(textOf))),
    ];
    let ranked = this.ranking.rank(query, candidates, texts, plan.chunks);
    // Ultra-fast reads nothing and waits for nothing: the engines' order, as evidence ranks it.
    if (this.reranker && plan.read) {
      try {
        ranked = await this.reranker.rerank(request.query, ranked, request.signal);
      } catch (error) {
        this.logger.warn(`reranking failed, keeping the evidence ranking: ${(error as Error).message}`);
      }
    }
    return request.country ? boostCountry(ranked, request.country) : ranked;
  }
}

/**
 * A hit whose page was read (for this search, or earlier: the local index's copy): its text, and the title, date,
 * favicon and images the engine lacked.
 */
function pageCandidate(hit: SearchHit, rank: number, page: ReadPage, source: 'page' | 'index'): RankCandidate {
  const enriched: SearchHit = {
    ...hit,
    title: hit.title && hit.title !== hit.url ? hit.title : page.title?.trim() || hit.title,
    rawContent: page.markdown,
    publishedDate: hit.publishedDate ?? page.publishedDate,
    favicon: hit.favicon ?? page.favicon,
    images: hit.images.length > 0 ? hit.images : page.images.map((url) => ({ url, description: null })),
  };
  return { hit: enriched, text: page.markdown, source, rank };
}

function otherCandidate({ hit, rank }: MergedHit, plan: ReadPlan): RankCandidate {
  if (hit.rawContent !== null) {
    // Ultra-fast reads nothing, the local index's pages included: their snippet stands for them.
    return { hit, text: plan.read ? hit.rawContent : hit.content, source: 'index', rank };
  }
  return { hit, text: hit.content, source: 'snippet', rank };
}

function textOf(candidate: RankCandidate): TextToRead {
  return { title: candidate.hit.title, text: candidate.text, markdown: candidate.text === candidate.hit.rawContent };
}

const ignore = () => {};

function readAll(query: QueryEvidence, candidates: readonly RankCandidate[]): Promise<TextEvidence[]> {
  const read = query.read(candidates.map(textOf));
  // Awaited once the reading is over; handled now so that an early failure is not an unhandled rejection.
  read.catch(ignore);
  return read;
}

function boostCountry(ranked: readonly RankedCandidate[], country: string): RankedCandidate[] {
  return ranked
    .map((r) => ({ ...r, score: countryBoosted(r.score, r.candidate.hit.url, country) }))
    .sort((a, b) => b.score - a.score || a.candidate.rank - b.candidate.rank);
}
