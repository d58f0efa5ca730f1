import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  Optional,
  type OnModuleDestroy,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import type { BackendPriority } from '../../database/backend-priority.js';
import { LOCAL_PROVIDER } from '../result-lists.js';
import { Database } from '../../database/database.js';
import { ReplicaRouter } from '../../database/replica-router.js';
import { INDEX_DATABASE } from '../../database/index-database.js';
import { INDEX_READS } from '../../database/read-replica.providers.js';
import { documentImages } from '../index/document-images.js';
import { domainPatternsToRegexes } from '../index/domain-patterns.js';
import { DEFAULT_TUNING } from '../index/local-index-tuning.js';
import { LocalIndex, type QueryAnalysis, type RankedDocument, type TextHits } from '../index/local-index.js';
import type { DocumentRow, SqlFilters } from '../index/ranking-sql.js';
import { markdownToText } from '../text/markdown-text.js';
import {
  CHUNK_SEPARATOR,
  type Passage,
  type ScoredSentence,
  bestWindow,
  chunk,
  mayContainTerms,
  scorePassages,
} from '../text/passages.js';
import { proseSentences } from '../text/sentences.js';
import { warmUpLocalIndex } from './local-index-warm-up.js';
import type { ProviderSearchRequest, SearchHit, SearchProvider } from './search-provider.port.js';

/** Snippets and passages come from the first this-many characters of a page. */
const MAX_TEXT_FOR_PASSAGES = 60_000;
/** Advanced depth reranks this many documents per result asked for (at least ADVANCED_MIN_POOL). */
const ADVANCED_POOL_FACTOR = 2;
const ADVANCED_MIN_POOL = 20;
/** Advanced depth: the document's BM25F and its best passage's, mixed. */
const ADVANCED_DOCUMENT_SHARE = 0.75;
/** News: a document published now scores up to (1 + boost) times one published long ago. */
const NEWS_RECENCY_BOOST = 1;
const NEWS_HALF_LIFE_DAYS = 7;

interface Candidate {
  readonly ranked: RankedDocument;
  readonly row: DocumentRow;
  readonly sentences: ScoredSentence[];
  /** The query's lexemes in the title. */
  readonly titleHits: TextHits;
}

/**
 * The local index as a search provider: BM25F ranking in PostgreSQL (LocalIndex), then as content the best sentence
 * window (one passage) or the request's chunks_per_source best passages; at advanced depth a passage-level rerank.
 */
@Injectable()
export class LocalIndexProvider implements SearchProvider, OnApplicationBootstrap, OnModuleDestroy {
  readonly name = LOCAL_PROVIDER;
  readonly index: LocalIndex;
  private readonly priority: BackendPriority;

  constructor(
    @Inject(INDEX_DATABASE) private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'mode'>,
    @Optional() @Inject(INDEX_READS) reads?: ReplicaRouter,
  ) {
    this.priority = db.priority;
    // Searches read the index on the read replica when there is one; translations are learned on the primary.
    const searchReads = reads?.hasReplica
      ? { query: reads.query.bind(reads), transaction: reads.snapshot.bind(reads) }
      : db;
    this.index = new LocalIndex(searchReads, DEFAULT_TUNING, db.priority, db);
  }

  /** Embedded mode: the first searches of a fresh PGlite are slow; a warm-up pays for them before the server listens. */
  async onApplicationBootstrap(): Promise<void> {
    if (this.config.mode !== 'embedded') return;
    const logger = new Logger('LocalIndexProvider');
    const started = performance.now();
    try {
      const searches = await warmUpLocalIndex(this.db, (request) => this.search(request));
      const ms = Math.round(performance.now() - started);
      if (searches > 0) logger.log(`search index warmed up: ${searches} searches in ${ms} ms`);
    } catch (error) {
      logger.warn(`search index warm-up failed: ${(error as Error).message}`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.index.close();
  }

  /** A search goes ahead of background work on embedded mode's one backend (BackendPriority). */
  search(request: ProviderSearchRequest): Promise<SearchHit[]> {
    return this.priority.foreground(() => this.searchIndex(request));
  }

  private async searchIndex(request: ProviderSearchRequest): Promise<SearchHit[]> {
    if (request.maxResults <= 0) return [];
    const analysis = await this.index.analyze(request.query);
    const advanced = request.depth === 'advanced';
    const news = request.topic === 'news';
    const limit = advanced
      ? Math.max(request.maxResults * ADVANCED_POOL_FACTOR, ADVANCED_MIN_POOL)
      : request.maxResults;
    const boost = news ? NEWS_RECENCY_BOOST : 0;
    const ranked = await this.index.rank(analysis, {
      limit,
      filters: sqlFilters(request),
      recencyBoost: boost,
      recencyHalfLifeDays: NEWS_HALF_LIFE_DAYS,
      withRows: true,
    });
    if (ranked.documents.length === 0) return [];
    const candidates = await this.sentencesOf(
      ranked.documents.flatMap((doc) => (doc.row ? [{ ranked: doc, row: doc.row }] : [])),
      analysis,
    );
    const ceiling = analysis.maxScore * (1 + boost);
    const normalize = (score: number) => (ceiling > 0 ? Math.sqrt(Math.min(1, Math.max(0, score / ceiling))) : 0);

    if (!advanced && request.chunksPerSource <= 1) {
      return candidates.map((c) =>
        this.hit(
          c,
          normalize(c.ranked.score),
          bestWindow(c.sentences, analysis.weights, analysis.translations)?.text ?? '',
        ),
      );
    }
    const chunked = bestPassages(candidates, analysis);
    if (!advanced) {
      return chunked.map(({ candidate, best }) =>
        this.hit(candidate, normalize(candidate.ranked.score), joinChunks(best, request.chunksPerSource)),
      );
    }
    const reranked = chunked.map(({ candidate, best }) => {
      const passageShare =
        analysis.maxScore > 0 ? ((best[0]?.score ?? 0) / analysis.maxScore) * candidate.ranked.prior : 0;
      const documentShare = ceiling > 0 ? candidate.ranked.score / ceiling : 0;
      const score = ADVANCED_DOCUMENT_SHARE * documentShare + (1 - ADVANCED_DOCUMENT_SHARE) * passageShare;
      return { candidate, score, content: joinChunks(best, request.chunksPerSource) };
    });
    reranked.sort((a, b) => b.score - a.score || (a.candidate.row.url < b.candidate.row.url ? -1 : 1));
    return reranked
      .slice(0, request.maxResults)
      .map((r) => this.hit(r.candidate, Math.sqrt(Math.min(1, Math.max(0, r.score))), r.content));
  }

  /** Splits each document into sentences and finds the query's lexemes in them (one round trip for all). */
  private async sentencesOf(
    documents: readonly { ranked: RankedDocument; row: DocumentRow }[],
    analysis: QueryAnalysis,
  ): Promise<Candidate[]> {
    // The query's lexemes and their translations' (passages count them as ranking does).
    const lexemes = [
      ...new Set([...analysis.terms.map((t) => t.lexeme), ...analysis.translations.map((t) => t.target)]),
    ];
    const mayMatch = mayContainTerms(lexemes);
    const split = documents.map((doc) =>
      proseSentences(markdownToText(doc.row.content.slice(0, MAX_TEXT_FOR_PASSAGES))),
    );
    // sentence -1: the title
    const pending: { doc: number; sentence: number; text: string }[] = [];
    split.forEach((sentences, doc) => {
      const title = documents[doc]!.row.title;
      if (title && mayMatch(title)) pending.push({ doc, sentence: -1, text: title });
      sentences.forEach((s, sentence) => {
        if (mayMatch(s.text)) pending.push({ doc, sentence, text: s.text });
      });
    });
    const hits = await this.index.analyzeTexts(
      pending.map((p) => p.text),
      lexemes,
    );
    const scored: ScoredSentence[][] = split.map((sentences) => sentences.map((s) => ({ ...s, hits: new Map() })));
    const titleHits: TextHits[] = documents.map(() => new Map());
    pending.forEach((p, i) => {
      if (p.sentence < 0) titleHits[p.doc] = hits[i]!;
      else scored[p.doc]![p.sentence] = { ...split[p.doc]![p.sentence]!, hits: hits[i]! };
    });
    return documents.map((doc, i) => ({ ...doc, sentences: scored[i]!, titleHits: titleHits[i]! }));
  }

  private hit(candidate: Candidate, score: number, content: string): SearchHit {
    const { row } = candidate;
    return {
      url: row.url,
      title: row.title?.trim() || row.url,
      content,
      score: Math.round(score * 1e6) / 1e6,
      rawContent: row.content,
      publishedDate: row.published_date ? new Date(row.published_date) : null,
      favicon: row.favicon,
      images: documentImages(row.images, row.structured_data, row.title),
      provider: this.name,
    };
  }
}

/** Each candidate's passages, scored for the query, best first. */
function bestPassages(
  candidates: readonly Candidate[],
  analysis: QueryAnalysis,
): { candidate: Candidate; best: Passage[] }[] {
  const chunked = candidates.map((c) => ({ candidate: c, passages: chunk(c.sentences) }));
  // A passage is read under its page's title (as passage rankers prepend it).
  const titles = new Map(chunked.flatMap((c) => c.passages.map((p) => [p, c.candidate.titleHits] as const)));
  scorePassages(
    chunked.flatMap((c) => c.passages),
    analysis.weights,
    titles,
    analysis.translations,
  );
  return chunked.map(({ candidate, passages }) => ({
    candidate,
    best: [...passages].sort((a, b) => b.score - a.score || a.start - b.start),
  }));
}

function joinChunks(passages: readonly Passage[], count: number): string {
  const withTerms = passages.filter((p) => p.score > 0);
  const chosen = (withTerms.length > 0 ? withTerms : passages.slice(0, 1)).slice(0, Math.max(1, count));
  return chosen.map((p) => p.text).join(CHUNK_SEPARATOR);
}

function sqlFilters(request: ProviderSearchRequest): SqlFilters {
  const news = request.topic === 'news';
  return {
    includeUrlPatterns: domainPatternsToRegexes(request.includeDomains),
    excludeUrlPatterns: domainPatternsToRegexes(request.excludeDomains),
    from: request.from,
    to: request.to,
    dateField: news ? 'published' : 'published_or_fetched',
    requirePublished: news,
    phrases: request.requiredPhrases,
    language: request.language,
    languageStrict: request.languageStrict,
  };
}
