/** How the local index retrieves and ranks: the trade between exact BM25F top-k and the work per query. */
export interface LocalIndexTuning {
  /**
   * Corpora of at most this many documents are ranked exhaustively (every document with a query term is scored): it
   * stays fast there, and the ranking is then exactly BM25F's whatever the query.
   */
  readonly exhaustiveBelow: number;
  /** Candidate retrieval starts with the rarest terms whose document frequencies add up to at most this. */
  readonly retrievalBudget: number;
  /**
   * Retrieval widens (MaxScore) only while the document frequencies add up to at most this. Past it, and for queries
   * whose rarest term is more common than this, candidates are the pages with a query term in the title or every
   * query term in the body (very common terms still score, but no longer retrieve).
   */
  readonly retrievalCeiling: number;
  /** The most candidates one ranking query scores. */
  readonly candidateCap: number;
  /**
   * Unfiltered queries over larger corpora take their candidates from the impact-ordered postings: this many of each
   * query term's highest-impact postings (Infinity: all), of which the `postingsCandidates` best approximate scores
   * (at least limit × postingsCandidatesPerResult) are scored exactly. Filtered queries use the GIN indexes (MaxScore), which
   * can apply the filters before the cut.
   */
  readonly postingsPerTerm: number;
  readonly postingsCandidates: number;
  /** At least this many postings candidates per result asked for. */
  readonly postingsCandidatesPerResult: number;
  /** Proximity is computed for max(limit × this, minProximityPool) best BM25 candidates. */
  readonly proximityPoolFactor: number;
  readonly minProximityPool: number;
  /**
   * Whether the index's frequent statements (query analysis, ranking, word lexemes) are named (prepared): parsed and
   * planned once per connection. Embedded mode too: its wire server keeps each connection's names apart.
   */
  readonly preparedStatements: boolean;
}

export const DEFAULT_TUNING: LocalIndexTuning = {
  exhaustiveBelow: 2000,
  retrievalBudget: 500,
  retrievalCeiling: 2000,
  candidateCap: 2000,
  postingsPerTerm: 400,
  postingsCandidates: 100,
  postingsCandidatesPerResult: 4,
  proximityPoolFactor: 2,
  minProximityPool: 40,
  preparedStatements: true,
};
