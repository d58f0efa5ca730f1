import type { SEARCH_DEPTHS } from '../dto/search-request.dto.js';

export type SearchDepth = (typeof SEARCH_DEPTHS)[number];

/**
 * What a search depth reads of the upstream hits. The budget is a deadline for the reading as a whole: it starts when
 * the engines have answered, every page read (robots.txt, fetch, redirects, extraction) ends by then, and a page that
 * has not is shown with the engine's snippet. Prices do not depend on it (basic, fast and ultra-fast 1 credit,
 * advanced 2).
 */
export interface ReadPlan {
  readonly depth: SearchDepth;
  /** Whether upstream pages are read at all (ultra-fast: the engines' snippets as they are). */
  readonly read: boolean;
  /** Hits asked of every provider and ranked: the engine's top this many (never fewer than max_results). */
  readonly candidates: number;
  /** The reading deadline, in milliseconds after the engines answered. */
  readonly budgetMs: number;
  /** The share of the pages to fetch that are read before the reading may end early (EnoughRead). */
  readonly enoughShare: number;
  /**
   * The whole search's budget, in milliseconds from the request's arrival (time queued included): the reading ends
   * by then less the ranking's reserve, whenever the engines answered (search-deadline.ts).
   */
  readonly answerBudgetMs: number;
  /** Passages `content` joins (chunks_per_source, or the depth's default). */
  readonly chunks: number;
  /** max_age: how old a cached copy may be to stand for a read (null: the server's default). */
  readonly maxAgeSeconds: number | null;
  /** cache_fallback: a page not read in time is shown from an older cached copy, when there is one. */
  readonly cacheFallback: boolean;
}

/** What the request says of reading, beyond its depth. */
export interface ReadOptions {
  readonly chunksPerSource?: number;
  readonly maxAgeSeconds?: number;
  /** fetch_timeout: shortens the depth's deadline. */
  readonly fetchTimeoutSeconds?: number;
  readonly cacheFallback?: boolean;
}

interface DepthSettings {
  readonly read: boolean;
  readonly candidates: number;
  readonly budgetMs: number;
  readonly enoughShare: number;
  readonly answerBudgetMs: number;
  readonly defaultChunks: number;
}

/** Per depth; docs/search.md's table of search depths gives these numbers: keep them in step. */
export const DEPTH_SETTINGS: Readonly<Record<SearchDepth, DepthSettings>> = {
  'ultra-fast': { read: false, candidates: 0, budgetMs: 0, enoughShare: 1, answerBudgetMs: 1000, defaultChunks: 1 },
  fast: { read: true, candidates: 8, budgetMs: 300, enoughShare: 1 / 2, answerBudgetMs: 1000, defaultChunks: 3 },
  basic: { read: true, candidates: 12, budgetMs: 500, enoughShare: 1 / 2, answerBudgetMs: 1500, defaultChunks: 3 },
  advanced: { read: true, candidates: 20, budgetMs: 1300, enoughShare: 3 / 4, answerBudgetMs: 3000, defaultChunks: 3 },
};

/** Upstream hits read at once on one host by one search (the rest wait for a turn, within the same deadline). */
export const READS_PER_HOST = 4;

export function readPlan(depth: SearchDepth, maxResults: number, options: ReadOptions = {}): ReadPlan {
  const settings = DEPTH_SETTINGS[depth];
  const timeoutMs = options.fetchTimeoutSeconds === undefined ? Infinity : options.fetchTimeoutSeconds * 1000;
  return {
    depth,
    read: settings.read,
    candidates: Math.max(maxResults, settings.candidates),
    budgetMs: Math.round(Math.min(settings.budgetMs, timeoutMs)),
    enoughShare: settings.enoughShare,
    answerBudgetMs: settings.answerBudgetMs,
    chunks: options.chunksPerSource ?? settings.defaultChunks,
    maxAgeSeconds: options.maxAgeSeconds ?? null,
    cacheFallback: options.cacheFallback === true,
  };
}
