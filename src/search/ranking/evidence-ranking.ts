import { Injectable } from '@nestjs/common';
import type { QueryAnalysis } from '../index/local-index.js';
import { LocalIndexProvider } from '../providers/local-index.provider.js';
import { CHUNK_SEPARATOR, type Passage, scorePassages } from '../text/passages.js';
import type { Evidence, RankCandidate, RankedCandidate } from './rank-candidate.js';
import { QueryEvidence, type TextEvidence } from './text-evidence.js';

/** The score's mix: best passage, query-term coverage of the whole text, provider rank. */
const PASSAGE_SHARE = 0.5;
const COVERAGE_SHARE = 0.3;
const PRIOR_SHARE = 0.2;
/**
 * A snippet's evidence counts for this much of a page's: engines cut snippets around the query's words, so a snippet
 * holds them more densely than any passage of its page (and says less than the page).
 */
const SNIPPET_EVIDENCE = 0.8;

/**
 * One ranking for the candidates of every provider, from what their texts say about the query: each text is cut into
 * passages (whole sentences, at most 500 characters) scored by BM25 with proximity under the page's title, with the
 * local index's term weights (IDF) for all alike; a candidate's score mixes its best passage, how much of the query
 * its whole text covers and its provider's rank. A page read and a page indexed are read the same way; a snippet is
 * read as the only passage there is.
 */
@Injectable()
export class EvidenceRanking {
  constructor(private readonly local: LocalIndexProvider) {}

  /** The query analysed, ready to read texts (QueryEvidence.read) as they come. */
  async forQuery(query: string): Promise<QueryEvidence> {
    return new QueryEvidence(this.local.index, await this.local.index.analyze(query));
  }

  /** The candidates, each with its text read (`texts`, by candidate), best first. */
  rank(
    query: QueryEvidence,
    candidates: readonly RankCandidate[],
    texts: readonly TextEvidence[],
    chunks: number,
  ): RankedCandidate[] {
    const { analysis } = query;
    const titles = new Map(texts.flatMap((t) => t.passages.map((p) => [p, t.titleHits] as const)));
    scorePassages(
      texts.flatMap((t) => t.passages),
      analysis.weights,
      titles,
      analysis.translations,
    );
    const totalWeight = queryWeight(analysis);
    const ranked = candidates.map((candidate, i): RankedCandidate => {
      const best = bestFirst(texts[i]!.passages);
      const evidence = evidenceOf(analysis, totalWeight, candidate, texts[i]!, best[0]);
      const score =
        PASSAGE_SHARE * evidence.passage + COVERAGE_SHARE * evidence.coverage + PRIOR_SHARE * evidence.prior;
      const content = candidate.source === 'snippet' ? candidate.text : joinChunks(best, chunks);
      return { candidate, evidence, score: Math.round(score * 1e6) / 1e6, content };
    });
    return ranked.sort(
      (a, b) =>
        b.score - a.score || a.candidate.rank - b.candidate.rank || compare(a.candidate.hit.url, b.candidate.hit.url),
    );
  }

  /**
   * How well one page read answers the query on its own, in [0, 1]: its best passage and its coverage of the query,
   * weighed as `rank` weighs them, without the provider's rank. Its passages are scored against one another only (the
   * final ranking scores them again, among every candidate's).
   */
  strength(query: QueryEvidence, candidate: RankCandidate, text: TextEvidence): number {
    const { analysis } = query;
    scorePassages(
      text.passages,
      analysis.weights,
      new Map(text.passages.map((p) => [p, text.titleHits] as const)),
      analysis.translations,
    );
    const best = text.passages.reduce<Passage | undefined>((a, b) => (a && a.score >= b.score ? a : b), undefined);
    const evidence = evidenceOf(analysis, queryWeight(analysis), candidate, text, best);
    return (PASSAGE_SHARE * evidence.passage + COVERAGE_SHARE * evidence.coverage) / (PASSAGE_SHARE + COVERAGE_SHARE);
  }
}

function bestFirst(passages: readonly Passage[]): Passage[] {
  return [...passages].sort((a, b) => b.score - a.score || a.start - b.start);
}

/** The weight of all the query's lexemes. */
function queryWeight(analysis: QueryAnalysis): number {
  return [...analysis.weights.values()].reduce((sum, w) => sum + w, 0);
}

function evidenceOf(
  analysis: QueryAnalysis,
  totalWeight: number,
  candidate: RankCandidate,
  text: TextEvidence,
  best: Passage | undefined,
): Evidence {
  // A snippet: an engine's, or the index's own at ultra-fast depth.
  const discount = candidate.text === candidate.hit.rawContent ? 1 : SNIPPET_EVIDENCE;
  return {
    passage: analysis.maxScore > 0 ? discount * clamp((best?.score ?? 0) / analysis.maxScore) : 0,
    coverage: totalWeight > 0 ? discount * clamp(coveredWeight(text.found, analysis) / totalWeight) : 0,
    prior: 1 / Math.log2(candidate.rank + 2),
  };
}

/** The weight of the query's lexemes in `found` (a translation's lexeme counts at its share of its source's). */
function coveredWeight(found: ReadonlySet<string>, analysis: QueryAnalysis): number {
  let covered = 0;
  for (const [lexeme, weight] of analysis.weights) {
    if (found.has(lexeme)) {
      covered += weight;
      continue;
    }
    const share = Math.max(
      0,
      ...analysis.translations.filter((t) => t.source === lexeme && found.has(t.target)).map((t) => t.share),
    );
    covered += weight * Math.min(1, share);
  }
  return covered;
}

function joinChunks(passages: readonly Passage[], count: number): string {
  const withTerms = passages.filter((p) => p.score > 0);
  const chosen = (withTerms.length > 0 ? withTerms : passages.slice(0, 1)).slice(0, Math.max(1, count));
  return chosen.map((p) => p.text).join(CHUNK_SEPARATOR);
}

const clamp = (value: number) => Math.min(1, Math.max(0, value));
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
