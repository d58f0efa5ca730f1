import { Injectable } from '@nestjs/common';
import type { QueryAnalysis, TextHits } from '../index/local-index.js';
import { LocalIndexProvider } from '../providers/local-index.provider.js';
import { markdownToText } from '../text/markdown-text.js';
import {
  CHUNK_SEPARATOR,
  type Passage,
  type ScoredSentence,
  chunk,
  mayContainTerms,
  scorePassages,
} from '../text/passages.js';
import { proseSentences } from '../text/sentences.js';
import type { Evidence, RankCandidate, RankedCandidate } from './rank-candidate.js';

/** Passages come from the first this-many characters of a text (as the local index's snippets). */
const MAX_TEXT_FOR_PASSAGES = 60_000;
/** The score's mix: best passage, query-term coverage of the whole text, provider rank. */
const PASSAGE_SHARE = 0.5;
const COVERAGE_SHARE = 0.3;
const PRIOR_SHARE = 0.2;

interface Read {
  readonly candidate: RankCandidate;
  readonly passages: Passage[];
  readonly titleHits: TextHits;
  /** Lexemes found anywhere in the text or the title. */
  readonly found: Set<string>;
}

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

  async rank(query: string, candidates: readonly RankCandidate[], chunks: number): Promise<RankedCandidate[]> {
    if (candidates.length === 0) return [];
    const analysis = await this.local.index.analyze(query);
    const reads = await this.read(candidates, analysis);
    const titles = new Map(reads.flatMap((r) => r.passages.map((p) => [p, r.titleHits] as const)));
    scorePassages(
      reads.flatMap((r) => r.passages),
      analysis.weights,
      titles,
      analysis.translations,
    );
    const totalWeight = [...analysis.weights.values()].reduce((sum, w) => sum + w, 0);
    const ranked = reads.map((r): RankedCandidate => {
      const best = [...r.passages].sort((a, b) => b.score - a.score || a.start - b.start);
      const evidence: Evidence = {
        passage: analysis.maxScore > 0 ? clamp((best[0]?.score ?? 0) / analysis.maxScore) : 0,
        coverage: totalWeight > 0 ? clamp(coveredWeight(r.found, analysis) / totalWeight) : 0,
        prior: 1 / Math.log2(r.candidate.rank + 2),
      };
      const score =
        PASSAGE_SHARE * evidence.passage + COVERAGE_SHARE * evidence.coverage + PRIOR_SHARE * evidence.prior;
      const content = r.candidate.source === 'snippet' ? r.candidate.text : joinChunks(best, chunks);
      return { candidate: r.candidate, evidence, score: Math.round(score * 1e6) / 1e6, content };
    });
    return ranked.sort(
      (a, b) =>
        b.score - a.score || a.candidate.rank - b.candidate.rank || compare(a.candidate.hit.url, b.candidate.hit.url),
    );
  }

  /** Every text's sentences with the query's lexemes found in them (one round trip for all). */
  private async read(candidates: readonly RankCandidate[], analysis: QueryAnalysis): Promise<Read[]> {
    const lexemes = [
      ...new Set([...analysis.terms.map((t) => t.lexeme), ...analysis.translations.map((t) => t.target)]),
    ];
    const mayMatch = mayContainTerms(lexemes);
    const split = candidates.map((c) => {
      const text = c.text.slice(0, MAX_TEXT_FOR_PASSAGES);
      return proseSentences(c.source === 'snippet' ? text : markdownToText(text));
    });
    // sentence -1: the title
    const pending: { doc: number; sentence: number; text: string }[] = [];
    split.forEach((sentences, doc) => {
      const title = candidates[doc]!.hit.title;
      if (title && mayMatch(title)) pending.push({ doc, sentence: -1, text: title });
      sentences.forEach((s, sentence) => {
        if (mayMatch(s.text)) pending.push({ doc, sentence, text: s.text });
      });
    });
    const hits = await this.local.index.analyzeTexts(
      pending.map((p) => p.text),
      lexemes,
    );
    const scored: ScoredSentence[][] = split.map((sentences) => sentences.map((s) => ({ ...s, hits: new Map() })));
    const titleHits: TextHits[] = candidates.map(() => new Map());
    const found = candidates.map(() => new Set<string>());
    pending.forEach((p, i) => {
      const lexemesHit = hits[i]!;
      for (const lexeme of lexemesHit.keys()) found[p.doc]!.add(lexeme);
      if (p.sentence < 0) titleHits[p.doc] = lexemesHit;
      else scored[p.doc]![p.sentence] = { ...split[p.doc]![p.sentence]!, hits: lexemesHit };
    });
    return candidates.map((candidate, i) => ({
      candidate,
      passages: chunk(scored[i]!),
      titleHits: titleHits[i]!,
      found: found[i]!,
    }));
  }
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
