import { BM25F, HUB_PRIOR_WEIGHT } from './bm25.js';
import type { Translation } from './term-translations.js';

/**
 * The SQL of the local index (tables and triggers: migrations/004_search_index.sql). Core PostgreSQL only, so that it
 * runs unchanged on PGlite.
 */

/** Title positions are moved past every body position (PostgreSQL clamps positions at 16,383). */
export const TITLE_POSITION_OFFSET = 100_000;

/**
 * The query's lexemes (English stemming, stop words dropped) with their document and collection frequencies and
 * learned translations (null: not learned yet; see term-translations.ts), and the corpus totals.
 */
export const ANALYZE_QUERY_SQL = `
SELECT c.doc_count::float8 AS doc_count,
       c.title_len_sum::float8 AS title_len_sum,
       c.body_len_sum::float8 AS body_len_sum,
       coalesce((
         SELECT json_agg(json_build_object('lexeme', q.lexeme, 'qtf', q.qtf, 'df', coalesce(t.df, 0), 'cf', coalesce(t.cf, 0),
                                           'translations', tr.translations, 'translation_weights', tr.weights,
                                           'translated_docs', tr.doc_count)
                         ORDER BY q.first, q.lexeme)
         FROM (SELECT u.lexeme, coalesce(array_length(u.positions, 1), 1) AS qtf, coalesce(u.positions[1], 0) AS first
               FROM unnest(to_tsvector('english'::regconfig, search_text($1::text))) AS u) q
         LEFT JOIN search_terms t ON t.lexeme = q.lexeme
         LEFT JOIN search_translations tr ON tr.lexeme = q.lexeme
       ), '[]'::json) AS terms
FROM search_corpus_stats c`;

/** Filters of a ranking query, already resolved to SQL values. */
export interface SqlFilters {
  /** Regular expressions (PostgreSQL ARE, case-insensitive) over the URL without its scheme. */
  readonly includeUrlPatterns: readonly string[];
  readonly excludeUrlPatterns: readonly string[];
  readonly from: Date | null;
  readonly to: Date | null;
  /** 'published': only dated documents, by published_date; 'published_or_fetched': fetched_at when undated. */
  readonly dateField: 'published' | 'published_or_fetched';
  readonly requirePublished: boolean;
  /** Phrases every result must contain (exact_match). */
  readonly phrases: readonly string[];
  /** Primary language subtag: documents recorded in another language are left out (and, strict, unrecorded ones). */
  readonly language?: string | null;
  readonly languageStrict?: boolean;
}

export const NO_FILTERS: SqlFilters = {
  includeUrlPatterns: [],
  excludeUrlPatterns: [],
  from: null,
  to: null,
  dateField: 'published_or_fetched',
  requirePublished: false,
  phrases: [],
};

/** Text as exact_match compares it: lower case, every run of non-alphanumerics one space, padded with spaces. */
const normalizedText = (expression: string) =>
  `(' ' || regexp_replace(lower(${expression}), '[^[:alnum:]]+', ' ', 'g') || ' ')`;

function filterSql(filters: SqlFilters, values: unknown[]): string {
  const parts: string[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const schemeless = `substr(d.url, strpos(d.url, '://') + 3)`;
  if (filters.includeUrlPatterns.length > 0) {
    parts.push(`${schemeless} ~* ANY(${param(filters.includeUrlPatterns)}::text[])`);
  }
  if (filters.excludeUrlPatterns.length > 0) {
    parts.push(`NOT (${schemeless} ~* ANY(${param(filters.excludeUrlPatterns)}::text[]))`);
  }
  if (filters.requirePublished) parts.push('d.published_date IS NOT NULL');
  const date = filters.dateField === 'published' ? 'd.published_date' : 'coalesce(d.published_date, d.fetched_at)';
  if (filters.from) parts.push(`${date} >= ${param(filters.from)}::timestamptz`);
  if (filters.to) parts.push(`${date} < ${param(filters.to)}::timestamptz`);
  if (filters.language) {
    const recorded = `split_part(replace(lower(d.language), '_', '-'), '-', 1)`;
    const language = `${recorded} = ${param(filters.language)}::text`;
    parts.push(filters.languageStrict ? language : `(d.language IS NULL OR ${language})`);
  }
  for (const phrase of filters.phrases) {
    const p = param(phrase);
    parts.push(
      `(numnode(phraseto_tsquery('english'::regconfig, search_text(${p}::text))) = 0
        OR d.title_tsv @@ phraseto_tsquery('english'::regconfig, search_text(${p}::text))
        OR d.body_tsv @@ phraseto_tsquery('english'::regconfig, search_text(${p}::text)))`,
      `strpos(${normalizedText(`coalesce(d.title, '') || ' ' || d.content`)}, ${normalizedText(`${p}::text`)}) > 0`,
    );
  }
  return parts.map((part) => ` AND ${part}`).join('');
}

/** Candidates from the GIN indexes: documents whose title matches `title` or whose body matches `body` (tsqueries). */
export interface TermRetrieval {
  readonly kind: 'terms';
  readonly title: string;
  readonly body: string;
}

/**
 * Candidates from the impact-ordered postings (migration 021): the `perTerm` highest-impact postings of each query
 * term (null: all of them), summed into approximate scores, of which the best `candidates` are scored exactly.
 */
export interface PostingsRetrieval {
  readonly kind: 'postings';
  readonly perTerm: number | null;
  readonly candidates: number;
}

export interface RankSqlInput {
  readonly lexemes: readonly string[];
  /** IDF × query frequency, in the order of `lexemes`. */
  readonly weights: readonly number[];
  /** Occurrences of a target count `share` of one of its source (a query lexeme) in the term frequencies. */
  readonly translations: readonly Translation[];
  readonly retrieval: TermRetrieval | PostingsRetrieval;
  readonly avgTitleLen: number;
  readonly avgBodyLen: number;
  readonly limit: number;
  /** How many of the best BM25 candidates get the proximity bonus computed. */
  readonly proximityPool: number;
  /** The most candidates scored (a safety net for queries made only of very common terms). */
  readonly candidateCap: number;
  /** News: score × (1 + recencyBoost · 2^(−age / halfLife)); 0 for none. */
  readonly recencyBoost: number;
  readonly recencyHalfLifeDays: number;
  readonly now: Date;
  readonly filters: SqlFilters;
  /** Also return the ranked documents' rows (the columns of DocumentRow). */
  readonly withRows: boolean;
}

export interface RankedRow extends Partial<Omit<DocumentRow, 'url'>> {
  url: string;
  bm25: number;
  proximity: number;
  /** The hub-page prior (see hubPrior), a factor of score. */
  prior: number;
  score: number;
  candidates: number;
}

/**
 * Run inside a transaction after these (see LocalIndex): the planner cannot see that evaluating `@@` on a sequential
 * scan decompresses every row's term vectors, and would rather scan the table than the GIN indexes for candidate
 * sets of a few percent of it; JIT compilation would cost more than the query on large indexes.
 */
export const RANK_SETTINGS_SQL = 'SET LOCAL enable_seqscan = off; SET LOCAL jit = off';

/**
 * Candidates from the GIN indexes or the impact-ordered postings (and the filters), exact BM25F over each
 * candidate from the query terms' positions (ts_filter∘setweight keeps only the query's lexemes of a term vector, in
 * C, without unnesting the whole vector), the proximity bonus for the best `proximityPool`, then the final order.
 * Candidates are keyed by a row number, and URLs compared bytewise (COLLATE "C"): a locale-aware comparison of URLs
 * costs more than the scoring.
 */
export function rankSql(input: RankSqlInput): { text: string; values: unknown[] } {
  const values: unknown[] = [
    input.lexemes,
    input.weights,
    input.avgTitleLen,
    input.avgBodyLen,
    input.limit,
    input.proximityPool,
    input.recencyBoost,
    input.recencyHalfLifeDays,
    input.now,
  ];
  const filters = filterSql(input.filters, values);
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const translated = input.translations.length > 0;
  const source =
    input.retrieval.kind === 'terms'
      ? `FROM documents d
  WHERE (d.title_tsv @@ ${param(input.retrieval.title)}::tsquery OR d.body_tsv @@ ${param(input.retrieval.body)}::tsquery)${filters}`
      : `FROM (
    SELECT p.doc_id, sum(qt.weight * p.impact) AS approx
    FROM ${translated ? 'retrieving' : 'q'} qt
    JOIN search_terms t ON t.lexeme = qt.lexeme
    CROSS JOIN LATERAL (
      SELECT p.doc_id, p.impact FROM search_postings p
      WHERE p.term_id = t.term_id
      ORDER BY p.impact DESC
      LIMIT ${param(input.retrieval.perTerm)}::int
    ) p
    GROUP BY p.doc_id
    ORDER BY approx DESC, p.doc_id
    LIMIT ${param(input.retrieval.candidates)}::int
  ) top
  JOIN documents d ON d.doc_id = top.doc_id
  WHERE true${filters}`;
  const { k1, bBody, bTitle, titleWeight, proximityWindow, proximityWeight } = BM25F;
  // With translations, the candidates' term vectors keep the targets' lexemes too, each query lexeme's term frequency
  // adds its targets' (tf'(u) = tf(u) + Σ share·tf(w)), and proximity still looks at the query's own lexemes only.
  const kept = translated ? param([...new Set([...input.lexemes, ...input.translations.map((t) => t.target)])]) : '$1';
  // Translations also retrieve from the postings, weighted by their share of their source's weight.
  const translationRows = translated
    ? `, x AS (
  SELECT lexeme AS source, lexeme AS target, 1::float8 AS share FROM q
  UNION ALL
  SELECT * FROM unnest(${param(input.translations.map((t) => t.source))}::text[],
                       ${param(input.translations.map((t) => t.target))}::text[],
                       ${param(input.translations.map((t) => t.share))}::float8[])
), retrieving AS (
  SELECT x.target AS lexeme, max(q.weight * x.share) AS weight FROM x JOIN q ON q.lexeme = x.source GROUP BY x.target
)`
    : '';
  const ownLexemes = translated ? ' WHERE u.lexeme = ANY($1::text[])' : '';
  const text = `
WITH q AS (
  SELECT * FROM unnest($1::text[], $2::float8[]) AS q(lexeme, weight)
)${translationRows}, cand AS (
  SELECT row_number() OVER () AS id, d.url, d.published_date, d.link_list_share,
         CASE WHEN $3::float8 > 0 THEN 1 - ${bTitle} + ${bTitle} * d.title_len / $3::float8 ELSE 1 END AS tnorm,
         CASE WHEN $4::float8 > 0 THEN 1 - ${bBody} + ${bBody} * d.body_len / $4::float8 ELSE 1 END AS bnorm,
         ts_filter(setweight(d.title_tsv, 'A', ${kept}::text[]), '{a}') AS tv,
         ts_filter(setweight(d.body_tsv, 'A', ${kept}::text[]), '{a}') AS bv
  ${source}
  ${Number.isFinite(input.candidateCap) ? `LIMIT ${Math.max(1, Math.floor(input.candidateCap))}` : ''}
), tf AS (
  SELECT c.id, u.lexeme, sum(u.tf) AS tf
  FROM cand c
  CROSS JOIN LATERAL (
    SELECT lexeme, ${titleWeight} * coalesce(array_length(positions, 1), 1) / c.tnorm AS tf FROM unnest(c.tv)
    UNION ALL
    SELECT lexeme, coalesce(array_length(positions, 1), 1) / c.bnorm FROM unnest(c.bv)
  ) u
  GROUP BY c.id, u.lexeme
)${
    translated
      ? `, translated_tf AS (
  SELECT ttf.id, x.source AS lexeme, sum(x.share * ttf.tf) AS tf
  FROM tf ttf JOIN x ON x.target = ttf.lexeme
  GROUP BY ttf.id, x.source
)`
      : ''
  }, scored AS (
  SELECT tf.id, sum(q.weight * tf.tf * ${k1 + 1} / (${k1} + tf.tf)) AS bm25
  FROM ${translated ? 'translated_tf' : 'tf'} tf JOIN q ON q.lexeme = tf.lexeme
  GROUP BY tf.id
), pool AS (
  SELECT c.url, c.published_date, c.link_list_share, c.bnorm, c.tv, c.bv, s.bm25
  FROM scored s JOIN cand c ON c.id = s.id
  ORDER BY s.bm25 DESC, c.url COLLATE "C"
  LIMIT $6::int
), ranked AS (
  SELECT p.url, p.bm25, coalesce(x.bonus, 0) AS proximity,
         1 - ${HUB_PRIOR_WEIGHT} * least(1::float8, greatest(0::float8, p.link_list_share)) ^ 2 AS prior,
         CASE WHEN $7::float8 > 0 AND p.published_date IS NOT NULL
              THEN 1 + $7::float8 * power(2::float8, -least(60::float8, greatest(0::float8,
                     extract(epoch FROM ($9::timestamptz - p.published_date))::float8 / 86400 / $8::float8)))
              ELSE 1 END AS boost
  FROM pool p
  LEFT JOIN LATERAL (
    WITH occ AS (
      SELECT u.lexeme, pos::int + ${TITLE_POSITION_OFFSET} AS pos FROM unnest(p.tv) u, unnest(u.positions) pos${ownLexemes}
      UNION ALL
      SELECT u.lexeme, pos::int FROM unnest(p.bv) u, unnest(u.positions) pos${ownLexemes}
    ), seq AS (
      SELECT lexeme, pos, lag(lexeme) OVER w AS prev_lexeme, lag(pos) OVER w AS prev_pos
      FROM occ WINDOW w AS (ORDER BY pos, lexeme COLLATE "C")
    ), pairs AS (
      SELECT lexeme, prev_lexeme, 1.0::float8 / ((pos - prev_pos) * (pos - prev_pos)) AS inverse
      FROM seq
      WHERE prev_lexeme IS NOT NULL AND prev_lexeme <> lexeme AND pos - prev_pos BETWEEN 1 AND ${proximityWindow}
    ), acc AS (
      SELECT g.lexeme, sum(g.gain) AS acc
      FROM (SELECT pr.lexeme, pr.inverse * q.weight AS gain FROM pairs pr JOIN q ON q.lexeme = pr.prev_lexeme
            UNION ALL
            SELECT pr.prev_lexeme, pr.inverse * q.weight FROM pairs pr JOIN q ON q.lexeme = pr.lexeme) g
      GROUP BY g.lexeme
    )
    SELECT ${proximityWeight} * sum(least(1::float8, q.weight) * acc.acc * ${k1 + 1} / (acc.acc + ${k1} * p.bnorm)) AS bonus
    FROM acc JOIN q ON q.lexeme = acc.lexeme
    WHERE acc.acc > 0
  ) x ON true
)
SELECT r.url, r.bm25, r.proximity, r.prior,
       -- Sums in another order (another plan, the postings path) differ in the last bits: rounded, they agree.
       round(((r.bm25 + r.proximity) * r.boost * r.prior)::numeric, 12)::float8 AS score,
       (SELECT count(*) FROM cand)::int AS candidates${
         input.withRows
           ? `,
       d.domain, d.title, d.content, d.published_date, d.fetched_at, d.favicon, d.images, d.structured_data`
           : ''
       }
FROM ranked r${input.withRows ? ' JOIN documents d ON d.url = r.url' : ''}
ORDER BY score DESC, r.url COLLATE "C"
LIMIT $5::int`;
  return { text, values };
}

export interface DocumentRow {
  url: string;
  domain: string;
  title: string | null;
  content: string;
  published_date: Date | null;
  fetched_at: Date;
  favicon: string | null;
  images: unknown;
  structured_data: unknown;
}

export const FETCH_DOCUMENTS_SQL = `
SELECT url, domain, title, content, published_date, fetched_at, favicon, images, structured_data
FROM documents WHERE url = ANY($1::text[])`;

/** Each word's lexemes as the index analyses text (search_text, English stemming; none for a stop word). */
export const WORD_LEXEMES_SQL = `
SELECT t.w AS word, ARRAY(SELECT u.lexeme FROM unnest(to_tsvector('english'::regconfig, search_text(t.w))) u) AS lexemes
FROM unnest($1::text[]) AS t(w)`;
