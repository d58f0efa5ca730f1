import type { SearchHit } from '../providers/search-provider.port.js';

/** Where a result's text comes from: the page read for this search, the local index's copy, or the engine's snippet. */
export type ContentSource = 'page' | 'index' | 'snippet';

/** A hit of any provider, with the text ranking reads. */
export interface RankCandidate {
  readonly hit: SearchHit;
  /** The page as markdown (read or indexed), or the engine's snippet. */
  readonly text: string;
  readonly source: ContentSource;
  /** Its best position (0-based) among the lists of the providers that returned it: the engines' own judgement. */
  readonly rank: number;
}

/** What ranking found in a candidate, each in [0, 1]. */
export interface Evidence {
  /** The best passage's BM25 (with proximity and the title), over the most any text can score for the query. */
  readonly passage: number;
  /** The query terms the whole text has, weighted by IDF. */
  readonly coverage: number;
  /** From the provider's rank: 1 / log2(rank + 2). */
  readonly prior: number;
}

export interface RankedCandidate {
  readonly candidate: RankCandidate;
  readonly evidence: Evidence;
  /** In [0, 1]: one scale for every candidate, whichever provider found it. */
  readonly score: number;
  /** The best passages (chunks) joined with " [...] ", or the snippet as the engine wrote it. */
  readonly content: string;
}

/**
 * A later stage over the evidence ranking (e.g. a cross-encoder behind RERANK_URL): reorders and rescores the
 * ranked candidates; it must keep them all, and a failure must leave the evidence ranking as it was.
 */
export interface Reranker {
  rerank(query: string, ranked: readonly RankedCandidate[], signal?: AbortSignal): Promise<RankedCandidate[]>;
}

export const RERANKER = Symbol('RERANKER');
