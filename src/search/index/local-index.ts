import { createHash } from 'node:crypto';
import { type Queryable, oftenRun } from '../../database/database.js';
import { type CorpusStats, type RankTerm, proximityUpperBound, termUpperBound, termWeight } from './bm25.js';
import { foldAccents, stemPrefixes, words } from '../text/words.js';
import {
  ANALYZE_QUERY_SQL,
  type DocumentRow,
  FETCH_DOCUMENTS_SQL,
  NO_FILTERS,
  RANK_SETTINGS_SQL,
  type PostingsRetrieval,
  type RankedRow,
  type SqlFilters,
  type TermRetrieval,
  rankSql,
} from './ranking-sql.js';
import { WordLexemes } from './word-lexemes.js';
import { DEFAULT_TUNING, type LocalIndexTuning } from './local-index-tuning.js';
import type { BackendPriority } from '../../database/backend-priority.js';
import { TermTranslations, type Translation, chooseTranslations } from './term-translations.js';

/** A query as the index analysed it. */
export interface QueryAnalysis {
  readonly terms: readonly RankTerm[];
  readonly stats: CorpusStats;
  /** IDF × query frequency per lexeme. */
  readonly weights: ReadonlyMap<string, number>;
  /** The most any document can score for this query (BM25 part plus proximity): scores / this are in [0, 1]. */
  readonly maxScore: number;
  /** The learned translations ranking counts (see TRANSLATION in bm25.ts). */
  readonly translations: readonly Translation[];
}

export interface RankOptions {
  readonly limit: number;
  readonly filters?: SqlFilters;
  /** News: boost recent documents (see RankSqlInput.recencyBoost). */
  readonly recencyBoost?: number;
  readonly recencyHalfLifeDays?: number;
  readonly now?: Date;
  /** Return each ranked document's row too (saves the fetch round trip). */
  readonly withRows?: boolean;
}

export interface RankedDocument {
  readonly url: string;
  readonly bm25: number;
  readonly proximity: number;
  /** The hub-page prior, already a factor of score. */
  readonly prior: number;
  readonly score: number;
  /** With RankOptions.withRows. */
  readonly row?: DocumentRow;
}

export interface RankResult {
  readonly documents: RankedDocument[];
  /** Whether the top `limit` is exactly the BM25 top `limit` (no document could have been missed). */
  readonly exact: boolean;
  /** How many times the candidate set had to be widened (for the benchmark and tests). */
  readonly rounds: number;
  readonly candidates: number;
}

function hasFilters(filters: SqlFilters | undefined): boolean {
  if (!filters) return false;
  return (
    filters.includeUrlPatterns.length > 0 ||
    filters.excludeUrlPatterns.length > 0 ||
    filters.from !== null ||
    filters.to !== null ||
    filters.requirePublished ||
    filters.phrases.length > 0
  );
}

function documentRowOf(r: RankedRow): DocumentRow {
  return {
    url: r.url,
    domain: r.domain!,
    title: r.title ?? null,
    content: r.content!,
    published_date: r.published_date ?? null,
    fetched_at: r.fetched_at!,
    favicon: r.favicon ?? null,
    images: r.images,
    structured_data: r.structured_data,
  };
}

/** One analysed text: the positions of each query lexeme in it. */
export type TextHits = Map<string, number[]>;

const quoteLexeme = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** Where ranking queries go, and whether they may be named (prepared) statements there. */
interface RankConnection {
  readonly client: Queryable;
  readonly prepared: boolean;
}

/** A Queryable that can also run work in one transaction (Database); PGlite in tests is a plain Queryable. */
type Sql = Queryable & { transaction?<T>(work: (client: Queryable) => Promise<T>): Promise<T> };

/**
 * The local index over `documents`: query analysis, BM25F ranking with candidate retrieval by the GIN indexes, and
 * document fetches. Ranking is exact BM25F top-k where it is cheap to be (MaxScore): retrieval starts with the rarest
 * terms, and widens to the next term whenever a document matching only the terms left out could still reach the
 * k-th score; only past `retrievalCeiling` do very common terms stop widening it (they still score).
 */
export class LocalIndex {
  private readonly wordLexemes: WordLexemes;
  /** Learns the translations of the terms queries use, in the background. */
  readonly translations: TermTranslations;

  constructor(
    private readonly sql: Sql,
    private readonly tuning: LocalIndexTuning = DEFAULT_TUNING,
    priority?: BackendPriority,
    /** Where learned translations are written, when `sql` is a read replica. */
    learnOn: Queryable = sql,
  ) {
    this.wordLexemes = new WordLexemes(sql, this.canPrepare);
    this.translations = new TermTranslations(learnOn, priority);
  }

  /** Whether statements may be named (prepared): a pool's connections can; a bare PGlite (tests) cannot. */
  private get canPrepare(): boolean {
    return this.tuning.preparedStatements && !!this.sql.transaction;
  }

  /** Stops learning translations (before the database closes). */
  async close(): Promise<void> {
    await this.translations.close();
  }

  async analyze(query: string): Promise<QueryAnalysis> {
    const { rows } = await oftenRun<{
      doc_count: number;
      title_len_sum: number;
      body_len_sum: number;
      terms: {
        lexeme: string;
        qtf: number;
        df: number;
        cf: number;
        translations: string[] | null;
        translation_weights: number[] | null;
        translated_docs: number | null;
      }[];
    }>(this.sql, this.canPrepare && 'search_analyze_query', ANALYZE_QUERY_SQL, [query]);
    const row = rows[0];
    const docCount = Number(row?.doc_count ?? 0);
    const stats: CorpusStats = {
      docCount,
      avgTitleLen: docCount > 0 ? Number(row!.title_len_sum) / docCount : 0,
      avgBodyLen: docCount > 0 ? Number(row!.body_len_sum) / docCount : 0,
    };
    const analysed = (row?.terms ?? []).map((t) => ({
      lexeme: t.lexeme,
      qtf: Number(t.qtf),
      df: Number(t.df),
      cf: Number(t.cf),
      translations: t.translations
        ? {
            lexemes: t.translations,
            weights: (t.translation_weights ?? []).map(Number),
            docCount: Number(t.translated_docs),
          }
        : null,
    }));
    const terms: RankTerm[] = analysed.map(({ lexeme, qtf, df, cf }) => ({ lexeme, qtf, df, cf }));
    const weights = new Map(terms.map((term) => [term.lexeme, termWeight(term, stats)]));
    const maxScore =
      terms.reduce((sum, term) => sum + termUpperBound(weights.get(term.lexeme)!), 0) +
      proximityUpperBound([...weights.values()]);
    const { translations, toLearn } = chooseTranslations(analysed, docCount);
    this.translations.request(toLearn);
    return { terms, stats, weights, maxScore, translations };
  }

  async rank(analysis: QueryAnalysis, options: RankOptions): Promise<RankResult> {
    // Terms that occur in no document cannot retrieve anything; they still count in the query's maximum score.
    const present = analysis.terms.filter((term) => term.df > 0);
    if (present.length === 0 || options.limit <= 0) return { documents: [], exact: true, rounds: 0, candidates: 0 };
    // Candidates from the postings: one query, whose plan (index scans under a LIMIT) needs no planner settings.
    if (this.usesPostings(analysis, options)) {
      const connection = { client: this.sql, prepared: this.canPrepare };
      return this.rankFromPostings(connection, analysis, present, options);
    }
    // Every round in one transaction, after the planner settings (one BEGIN and COMMIT however many rounds). Without
    // transactions (a bare PGlite in tests) SET LOCAL would be a no-op with a warning: the plain queries then.
    if (!this.sql.transaction) return this.rankWith({ client: this.sql, prepared: false }, analysis, present, options);
    return this.sql.transaction(async (client) => {
      await client.query(RANK_SETTINGS_SQL); // two statements, one round trip (no parameters: simple protocol)
      return this.rankWith({ client, prepared: this.tuning.preparedStatements }, analysis, present, options);
    });
  }

  private usesPostings(analysis: QueryAnalysis, options: RankOptions): boolean {
    return analysis.stats.docCount > this.tuning.exhaustiveBelow && !hasFilters(options.filters);
  }

  private async rankFromPostings(
    connection: RankConnection,
    analysis: QueryAnalysis,
    present: readonly RankTerm[],
    options: RankOptions,
  ): Promise<RankResult> {
    const { tuning } = this;
    const retrieval: PostingsRetrieval = {
      kind: 'postings',
      perTerm: Number.isFinite(tuning.postingsPerTerm) ? tuning.postingsPerTerm : null,
      candidates: Math.max(tuning.postingsCandidates, options.limit * tuning.postingsCandidatesPerResult),
    };
    const { documents, candidates } = await this.runRank(connection, analysis, options, tuning, retrieval);
    // Exact when every posting of every term was read and no candidate was cut.
    const exact = present.every((t) => t.df <= tuning.postingsPerTerm) && candidates < retrieval.candidates;
    return { documents, exact, rounds: 1, candidates };
  }

  private async rankWith(
    connection: RankConnection,
    analysis: QueryAnalysis,
    present: readonly RankTerm[],
    options: RankOptions,
  ): Promise<RankResult> {
    const weightOf = (term: RankTerm) => analysis.weights.get(term.lexeme) ?? 0;
    // Rarest (highest weight) first: the order in which terms join the retrieval set.
    const byWeight = [...present].sort((a, b) => weightOf(b) - weightOf(a) || a.df - b.df);
    const boost = options.recencyBoost ?? 0;
    const tuning: LocalIndexTuning =
      analysis.stats.docCount <= this.tuning.exhaustiveBelow
        ? { ...this.tuning, retrievalBudget: Infinity, retrievalCeiling: Infinity, candidateCap: Infinity }
        : this.tuning;
    const run = (title: string, body: string) =>
      this.runRank(connection, analysis, options, tuning, { kind: 'terms', title, body });
    // A retrieving term brings its translations' documents too.
    const anyOf = (terms: readonly RankTerm[]) => {
      const lexemes = new Set(terms.map((t) => t.lexeme));
      const targets = analysis.translations.filter((t) => lexemes.has(t.source)).map((t) => t.target);
      return [...new Set([...lexemes, ...targets])].map(quoteLexeme).join(' | ');
    };

    if (byWeight[0]!.df > tuning.retrievalCeiling) {
      // Only very common terms: a query term in the title, or all of them in the body.
      const all = byWeight.map((t) => quoteLexeme(t.lexeme)).join(' & ');
      const { documents, candidates } = await run(anyOf(byWeight), all);
      return { documents, exact: false, rounds: 1, candidates };
    }
    let essential = 1;
    let dfSum = byWeight[0]!.df;
    while (essential < byWeight.length && dfSum + byWeight[essential]!.df <= tuning.retrievalBudget) {
      dfSum += byWeight[essential]!.df;
      essential++;
    }
    let rounds = 0;
    for (;;) {
      rounds++;
      const retrieval = anyOf(byWeight.slice(0, essential));
      const { documents, candidates } = await run(retrieval, retrieval);
      const capped = candidates >= tuning.candidateCap;
      const rest = byWeight.slice(essential);
      if (rest.length === 0) return { documents, exact: !capped, rounds, candidates };
      // MaxScore: a document matching none of the retrieval terms scores at most the bound of the others. The k-th
      // score only grows as retrieval widens, so the next round takes at once every term needed to bring the bound
      // of those left out under it: at most two rounds, however long the query.
      const kth = documents.length >= options.limit ? documents[options.limit - 1]!.score : 0;
      const boundOf = (terms: readonly RankTerm[]) => {
        const weights = terms.map(weightOf);
        return (weights.reduce((sum, w) => sum + termUpperBound(w), 0) + proximityUpperBound(weights)) * (1 + boost);
      };
      if (kth >= boundOf(rest)) return { documents, exact: !capped, rounds, candidates };
      if (rounds > 1) return { documents, exact: false, rounds, candidates };
      let widened = essential;
      let widenedDfSum = dfSum;
      while (widened < byWeight.length && kth < boundOf(byWeight.slice(widened))) {
        widenedDfSum += byWeight[widened]!.df;
        widened++;
      }
      // Past the ceiling (most long queries: their common terms together can outscore anything), the rare terms'
      // candidates are the answer: a second round would cost more candidates without making the top k exact.
      if (widenedDfSum > tuning.retrievalCeiling) return { documents, exact: false, rounds, candidates };
      essential = widened;
      dfSum = widenedDfSum;
    }
  }

  private async runRank(
    { client, prepared }: RankConnection,
    analysis: QueryAnalysis,
    options: RankOptions,
    tuning: LocalIndexTuning,
    retrieval: TermRetrieval | PostingsRetrieval,
  ): Promise<{ documents: RankedDocument[]; candidates: number }> {
    const proximityPool = Math.max(
      options.limit * this.tuning.proximityPoolFactor,
      this.tuning.minProximityPool,
      options.limit,
    );
    const { text, values } = rankSql({
      lexemes: analysis.terms.map((t) => t.lexeme),
      weights: analysis.terms.map((t) => analysis.weights.get(t.lexeme) ?? 0),
      translations: analysis.translations,
      retrieval,
      avgTitleLen: analysis.stats.avgTitleLen,
      avgBodyLen: analysis.stats.avgBodyLen,
      limit: options.limit,
      proximityPool,
      candidateCap: tuning.candidateCap,
      recencyBoost: options.recencyBoost ?? 0,
      recencyHalfLifeDays: options.recencyHalfLifeDays ?? 7,
      now: options.now ?? new Date(),
      filters: options.filters ?? NO_FILTERS,
      withRows: options.withRows ?? false,
    });
    const name = `search_rank_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    // A named statement: each connection plans the ranking query once per shape of filters, not once per call.
    const { rows } = await oftenRun<RankedRow>(client, prepared && name, text, values);
    return {
      documents: rows.map((r) => ({
        url: r.url,
        bm25: Number(r.bm25),
        proximity: Number(r.proximity),
        prior: Number(r.prior),
        score: Number(r.score),
        ...(options.withRows ? { row: documentRowOf(r) } : {}),
      })),
      candidates: Number(rows[0]?.candidates ?? 0),
    };
  }

  async fetch(urls: readonly string[]): Promise<Map<string, DocumentRow>> {
    if (urls.length === 0) return new Map();
    const { rows } = await this.sql.query<DocumentRow>(FETCH_DOCUMENTS_SQL, [urls]);
    return new Map(rows.map((row) => [row.url, row]));
  }

  /**
   * Positions of `lexemes` in each of `texts` (in words), stemmed as documents are: only the words that can stem to
   * one of them (see stemPrefixes) are looked up, at most one round trip for all the texts.
   */
  async analyzeTexts(texts: readonly string[], lexemes: readonly string[]): Promise<TextHits[]> {
    const result: TextHits[] = texts.map(() => new Map());
    if (texts.length === 0 || lexemes.length === 0) return result;
    const wanted = new Set(lexemes);
    const prefixes = stemPrefixes(lexemes);
    const mayStem = (word: string) => {
      const folded = foldAccents(word);
      return prefixes.some((prefix) => folded.startsWith(prefix));
    };
    const candidates = texts.map((text) => words(text).filter((w) => mayStem(w.word)));
    const lexemesOf = await this.wordLexemes.lexemesOf(
      new Set(candidates.flatMap((list) => list.map((w) => w.written))),
    );
    candidates.forEach((list, i) => {
      const hits = result[i]!;
      for (const { written, position } of list) {
        for (const lexeme of lexemesOf.get(written) ?? []) {
          if (!wanted.has(lexeme)) continue;
          const positions = hits.get(lexeme);
          if (positions) positions.push(position);
          else hits.set(lexeme, [position]);
        }
      }
    });
    return result;
  }
}
