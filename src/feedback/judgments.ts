import type { LoggedSearch } from '../search/result-log/search-result-log.js';
import { parseResultId } from '../search/result-log/result-ids.js';
import type { FeedbackRequestDto } from './dto/feedback-request.dto.js';

/** A relevance judgment: the search's query, a page, and its gain (0: shown and not used; 1: used; more: graded). */
export interface Judgment {
  readonly request_id: string;
  readonly query: string;
  readonly url: string;
  readonly gain: number;
}

export interface ResolvedFeedback {
  /** The search the feedback is filed under: the request_id given when it is a kept search, else the first named. */
  readonly searchRequestId: string | null;
  readonly judgments: Judgment[];
  /** Result ids that name no kept result of the organization's searches. */
  readonly ignoredIds: string[];
}

/** The request ids a feedback names: its request_id and those of its result ids. */
export function requestIdsOf(feedback: FeedbackRequestDto): string[] {
  const ids = new Set<string>();
  if (feedback.request_id) ids.add(feedback.request_id);
  for (const id of resultIdsOf(feedback)) {
    const parsed = parseResultId(id);
    if (parsed) ids.add(parsed.requestId);
  }
  return [...ids];
}

function resultIdsOf(feedback: FeedbackRequestDto): string[] {
  return [...(feedback.used_ids ?? []), ...(feedback.urls_scores ?? []).flatMap((s) => (s.id ? [s.id] : []))];
}

/**
 * A score as a gain: a number (or a numeric text) from 0 to 1 is relevant from 0.5, a larger one is a graded gain
 * (rounded); anything else (a text such as "good") judges nothing.
 */
export function gainOfScore(score: number | string | undefined): number | null {
  const value = typeof score === 'string' && score.trim() !== '' ? Number(score) : score;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return null;
  return value <= 1 ? (value >= 0.5 ? 1 : 0) : Math.round(value);
}

/**
 * The judgments a feedback makes about `searches` (the organization's kept searches it names). A search is judged
 * when the feedback says which of its results were used or scores one: its used pages gain 1 (or their score's
 * gain), every other result it showed 0. A used URL that no named search showed is judged for the search the
 * feedback is filed under (a page the agent found elsewhere is still relevant to that query).
 */
export function resolveFeedback(
  feedback: FeedbackRequestDto,
  searches: ReadonlyMap<string, LoggedSearch>,
): ResolvedFeedback {
  const ignoredIds: string[] = [];
  const gains = new Map<string, Map<string, number>>();
  const order: string[] = [];
  const judge = (requestId: string, url: string, gain: number, override: boolean) => {
    let byUrl = gains.get(requestId);
    if (!byUrl) {
      byUrl = new Map();
      gains.set(requestId, byUrl);
    }
    if (override || !byUrl.has(url)) byUrl.set(url, gain);
  };
  const named = (requestId: string) => {
    if (!order.includes(requestId)) order.push(requestId);
  };
  if (feedback.request_id && searches.has(feedback.request_id)) named(feedback.request_id);

  const resultOf = (id: string) => {
    const parsed = parseResultId(id);
    const search = parsed && searches.get(parsed.requestId);
    const result = search?.results[parsed!.position - 1];
    if (!search || result?.id !== id) {
      if (!ignoredIds.includes(id)) ignoredIds.push(id);
      return null;
    }
    named(search.requestId);
    return { requestId: search.requestId, url: result.url };
  };
  const byId = (feedback.used_ids ?? []).map(resultOf);
  const scoredById = (feedback.urls_scores ?? []).map((s) => (s.id ? resultOf(s.id) : null));
  const filedUnder = order[0] ?? null;
  /** The named searches that showed `url`, else the one the feedback is filed under. */
  const searchesOf = (url: string): string[] => {
    const showing = order.filter((r) => searches.get(r)!.results.some((result) => result.url === url));
    return showing.length > 0 ? showing : filedUnder ? [filedUnder] : [];
  };

  for (const hit of byId) if (hit) judge(hit.requestId, hit.url, 1, false);
  for (const url of feedback.used_urls ?? []) for (const r of searchesOf(url)) judge(r, url, 1, false);
  (feedback.urls_scores ?? []).forEach((score, i) => {
    const hit = scoredById[i];
    const gain = gainOfScore(score.agent_score) ?? 1;
    if (hit) judge(hit.requestId, hit.url, gain, true);
    else if (score.url) for (const r of searchesOf(score.url)) judge(r, score.url, gain, true);
  });

  const judgments: Judgment[] = [];
  for (const requestId of order) {
    const byUrl = gains.get(requestId);
    if (!byUrl) continue;
    const search = searches.get(requestId)!;
    for (const result of search.results) if (!byUrl.has(result.url)) byUrl.set(result.url, 0);
    for (const [url, gain] of byUrl) judgments.push({ request_id: requestId, query: search.query, url, gain });
  }
  return { searchRequestId: filedUnder, judgments, ignoredIds };
}
