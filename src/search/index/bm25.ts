/**
 * The ranking function of the local index: BM25F (one IDF per term, per-field length normalisation, a title weight)
 * plus a term-proximity bonus in the style of Rasolofo & Savoy's BM25TP. The SQL in ranking-sql.ts computes exactly
 * these formulas; the constants live here so that the SQL, the passage scorer and the tests share them.
 */
export const BM25F = {
  k1: 1.5,
  /** Length normalisation of the body (classic b). */
  bBody: 0.75,
  /** Titles are short and alike in length: little normalisation. */
  bTitle: 0.3,
  /** A title occurrence counts as this many body occurrences (BM25F field weight). */
  titleWeight: 2.5,
  /** Occurrences of two different query terms at most this many positions apart earn a proximity bonus. */
  proximityWindow: 5,
  /** Scale of the proximity bonus relative to the BM25 part. */
  proximityWeight: 0.5,
} as const;

/**
 * The translation model (migration 025): each of a query's rarest terms also counts its translations' occurrences,
 * tf'(u) = tf(u) + share · Σ p(w|u)·tf(w), where p(w|u) is w's normalised mutual information with u in the index. A
 * document that says "tumour" then scores for a query about "neoplasms", saturated and weighted as u itself. Measured on
 * SciFact's training claims (npm run eval:search): nDCG@10 +0.006 at basic, +0.010 at advanced.
 */
export const TRANSLATION = {
  /** How much one occurrence of a translation (of weight 1) counts as an occurrence of its source. */
  share: 0.4,
  /** Translations kept per term. */
  perTerm: 5,
  /** They are learned from this many of the term's highest-impact postings. */
  sample: 500,
  /** A translation is at most this many times as common as its source. */
  maxDfRatio: 2,
  /** How many of a query's rarest terms are translated (common terms weigh little and would cost the most). */
  translatedTerms: 5,
  /** Smaller corpora have none: too few documents to tell association from chance. */
  minDocuments: 1000,
  /** A term's translations are learned again once the corpus has grown or shrunk by this factor. */
  refreshFactor: 1.5,
} as const;

/**
 * Hub pages (see linkListShare): a page's score is multiplied by 1 − HUB_PRIOR_WEIGHT · share², so that a page made
 * only of links and short list entries keeps half its score, and prose (share under 0.3) at least 95%.
 */
export const HUB_PRIOR_WEIGHT = 0.5;

export function hubPrior(linkListShare: number): number {
  const share = Math.min(1, Math.max(0, linkListShare));
  return 1 - HUB_PRIOR_WEIGHT * share * share;
}

/**
 * Query terms are weighed by their burstiness too, cf/df (migration 027): a word that carries a topic is said several
 * times by a page about it, a word used in passing once, whatever their document frequencies. Each term's weight is
 * IDF × burstiness^exponent. On the judged terms of SciFact's training claims, burstiness predicts whether a claim's
 * term is in its relevant abstract (correlation 0.26) where IDF does not (−0.004). Measured there (npm run
 * eval:search): nDCG@10 0.7091 → 0.7140 at basic, 0.7117 → 0.7131 at advanced; in a replica of the ranking, +0.007
 * on each half of the claims, and exponents 0.4–0.6 within 0.001 of each other.
 */
export const BURSTINESS = {
  exponent: 0.5,
  /**
   * Smaller corpora weigh by IDF alone: a handful of pages is too few to tell a term's habit from one page's. (Shrinking
   * cf/df towards 1 instead loses most of the gain: the rare terms' burstiness is the informative part.)
   */
  minDocuments: 1000,
} as const;

/** Query terms as ranking sees them: a lexeme, how often the query has it, its document and collection frequencies. */
export interface RankTerm {
  readonly lexeme: string;
  readonly qtf: number;
  readonly df: number;
  /** Occurrences in the whole index (titles and bodies). */
  readonly cf: number;
}

export interface CorpusStats {
  readonly docCount: number;
  readonly avgTitleLen: number;
  readonly avgBodyLen: number;
}

/** Robertson–Sparck Jones IDF, floored at 0 by the `1 +` (Lucene's form): never negative for common terms. */
export function idf(docCount: number, df: number): number {
  return Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
}

/** Occurrences of a term in a document that has it, on average (1 for a term in no document). */
export function burstiness(term: Pick<RankTerm, 'df' | 'cf'>): number {
  return term.df > 0 ? Math.max(1, term.cf / term.df) : 1;
}

/**
 * The weight of a query term: its IDF times its burstiness^BURSTINESS.exponent (in corpora of minDocuments or more),
 * times its frequency in the query (a repeated term counts again).
 */
export function termWeight(term: RankTerm, stats: CorpusStats): number {
  const bursts = stats.docCount >= BURSTINESS.minDocuments ? burstiness(term) ** BURSTINESS.exponent : 1;
  return idf(stats.docCount, term.df) * bursts * term.qtf;
}

/** BM25's length normaliser of a field: 1 − b + b·len/avg (1 when the corpus has no text in that field). */
export function lengthNorm(length: number, average: number, b: number): number {
  return average > 0 ? 1 - b + (b * length) / average : 1;
}

/** BM25F's pseudo term frequency: the fields' occurrences, each weighted and normalised by its own length. */
export function pseudoTf(
  tfTitle: number,
  tfBody: number,
  titleLen: number,
  bodyLen: number,
  stats: CorpusStats,
): number {
  return (
    (BM25F.titleWeight * tfTitle) / lengthNorm(titleLen, stats.avgTitleLen, BM25F.bTitle) +
    tfBody / lengthNorm(bodyLen, stats.avgBodyLen, BM25F.bBody)
  );
}

/** Saturation: weight · tf·(k1+1)/(k1+tf); below weight·(k1+1) whatever the tf. */
export function saturate(weight: number, tf: number): number {
  return tf > 0 ? (weight * tf * (BM25F.k1 + 1)) / (BM25F.k1 + tf) : 0;
}

/**
 * Proximity accumulators: for each pair of consecutive query-term occurrences (in position order) of two different
 * terms at most `proximityWindow` apart, each term gains the other's weight / distance².
 */
export function proximityAccumulators(
  occurrences: readonly { lexeme: string; position: number }[],
  weights: ReadonlyMap<string, number>,
): Map<string, number> {
  const sorted = [...occurrences].sort((a, b) => a.position - b.position || (a.lexeme < b.lexeme ? -1 : 1));
  const acc = new Map<string, number>();
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1]!;
    const current = sorted[i]!;
    const distance = current.position - previous.position;
    if (previous.lexeme === current.lexeme || distance < 1 || distance > BM25F.proximityWindow) continue;
    const inverse = 1 / (distance * distance);
    acc.set(current.lexeme, (acc.get(current.lexeme) ?? 0) + (weights.get(previous.lexeme) ?? 0) * inverse);
    acc.set(previous.lexeme, (acc.get(previous.lexeme) ?? 0) + (weights.get(current.lexeme) ?? 0) * inverse);
  }
  return acc;
}

/** The proximity bonus from the accumulators: Σ min(1, w_t)·acc_t·(k1+1)/(acc_t + K), scaled. */
export function proximityBonus(
  acc: ReadonlyMap<string, number>,
  weights: ReadonlyMap<string, number>,
  bodyNorm: number,
): number {
  const K = BM25F.k1 * bodyNorm;
  let bonus = 0;
  for (const [lexeme, value] of acc) {
    if (value <= 0) continue;
    bonus += (Math.min(1, weights.get(lexeme) ?? 0) * value * (BM25F.k1 + 1)) / (value + K);
  }
  return BM25F.proximityWeight * bonus;
}

/** The most the BM25 part of one term can add to any document. */
export function termUpperBound(weight: number): number {
  return weight * (BM25F.k1 + 1);
}

/** The most the proximity bonus can add for these term weights (0 with fewer than two terms). */
export function proximityUpperBound(weights: readonly number[]): number {
  if (weights.length < 2) return 0;
  return BM25F.proximityWeight * weights.reduce((sum, w) => sum + Math.min(1, w) * (BM25F.k1 + 1), 0);
}
