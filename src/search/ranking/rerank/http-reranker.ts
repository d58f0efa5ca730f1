import { Counter, type Registry } from 'prom-client';
import type { RerankSettings } from '../../../config/app-config.js';
import type { RankedCandidate, Reranker } from '../rank-candidate.js';
import { requestRerank } from './rerank-request.js';

/** Candidates sent to the service: the evidence ranking's best this many (the others keep their place after them). */
const MAX_RERANKED = 50;
/** Characters of a candidate's title and passages sent: a cross-encoder reads about 512 tokens anyway. */
const MAX_TEXT_CHARS = 2000;

/**
 * RERANK_URL: the passages that `content` shows (with the title) go to a rerank service (rerank-request.ts), under
 * RERANK_TIMEOUT_MS and the search's own signal. Its scores order the candidates it scored and become their scores
 * (in [0, 1]; the evidence score breaks ties); a candidate it did not score follows them in the evidence order,
 * its score capped below theirs. Any failure rejects, and the caller keeps the evidence ranking.
 */
export class HttpReranker implements Reranker {
  private readonly calls: Counter<'outcome'>;

  constructor(
    private readonly settings: RerankSettings,
    registry: Registry,
  ) {
    this.calls = new Counter({
      name: 'search_rerank_calls_total',
      help: 'Calls of the rerank service (RERANK_URL) by outcome: reranked, timeout, failed (the evidence order kept).',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }

  async rerank(query: string, ranked: readonly RankedCandidate[], signal?: AbortSignal): Promise<RankedCandidate[]> {
    const sent = ranked.slice(0, MAX_RERANKED);
    if (sent.length < 2) return [...ranked];
    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    let scores: Map<number, number>;
    try {
      scores = await requestRerank(
        this.settings,
        query,
        sent.map(textOf),
        signal ? AbortSignal.any([timeout, signal]) : timeout,
      );
    } catch (error) {
      this.calls.inc({ outcome: timeout.aborted ? 'timeout' : 'failed' });
      throw error;
    }
    this.calls.inc({ outcome: 'reranked' });
    // Ties keep the evidence order (the order sent).
    const scored = sent
      .flatMap((r, at) => {
        const score = scores.get(at);
        return score === undefined ? [] : [{ ranked: { ...r, score: clamp(score) }, at }];
      })
      .sort((a, b) => b.ranked.score - a.ranked.score || a.at - b.at)
      .map((s) => s.ranked);
    const floor = scored.at(-1)!.score;
    const rest = ranked
      .filter((_, i) => i >= sent.length || !scores.has(i))
      .map((r) => ({ ...r, score: Math.min(r.score, floor) }));
    return [...scored, ...rest];
  }
}

function textOf({ candidate, content }: RankedCandidate): string {
  const title = candidate.hit.title.trim();
  return (title ? `${title}\n${content}` : content).slice(0, MAX_TEXT_CHARS);
}

function clamp(score: number): number {
  return Math.min(1, Math.max(0, score));
}
