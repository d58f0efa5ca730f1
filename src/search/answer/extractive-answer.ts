import type { TextHits } from '../index/local-index.js';
import type { Sentence } from '../text/sentences.js';

export type AnswerLevel = 'basic' | 'advanced';

/** How many sentences an answer has at most, and how many results it draws from. */
export const ANSWER_LIMITS = {
  basic: { sentences: 3, sources: 5 },
  advanced: { sentences: 6, sources: 8 },
} as const;

/** A sentence of a result, with the query's lexemes found in it. */
export interface AnswerCandidate {
  readonly sentence: Sentence;
  /** Rank of the result it comes from (0 = best). */
  readonly source: number;
  /** That result's score relative to the best result's, in [0, 1]. */
  readonly relevance: number;
  readonly hits: TextHits;
}

const MIN_CHARS = 25;
const MAX_CHARS = 400;

/** Questions whose answer is a number, a quantity or a date. */
const NUMERIC_QUESTION =
  /^\s*(how (long|much|many|old|big|large|tall|high|far|deep|fast|often|heavy|wide)|when|what year|in what year|what (is|was) the (population|size|length|height|price|cost))\b/i;
/** A sentence that continues the previous one's subject. */
export const CONTINUATION = /^(it|its|they|their|this|these|that|he|she|his|her)\b/i;

/**
 * An extractive answer: the result sentences that cover the query's terms best (by IDF weight), favouring better
 * results, a page's opening sentences, numbers for "how long / how many / when" questions, and a sentence that
 * continues ("It is ...") a sentence about the query's subject (which then comes along, for context); without
 * near-duplicates, in reading order (by result, then position). Every sentence is quoted verbatim from a result; null
 * when no sentence has a query term.
 */
export function extractiveAnswer(
  query: string,
  candidates: readonly AnswerCandidate[],
  weights: ReadonlyMap<string, number>,
  level: AnswerLevel,
): string | null {
  const total = [...weights.values()].reduce((sum, w) => sum + w, 0);
  if (total <= 0) return null;
  const coverageOf = (lexemes: Iterable<string>) =>
    [...lexemes].reduce((sum, lexeme) => sum + (weights.get(lexeme) ?? 0), 0) / total;
  const byPosition = new Map(candidates.map((c) => [`${c.source}:${c.sentence.index}`, c]));
  const previousOf = (c: AnswerCandidate) => {
    const previous = byPosition.get(`${c.source}:${c.sentence.index - 1}`);
    return previous && previous.sentence.block === c.sentence.block ? previous : null;
  };
  const numeric = NUMERIC_QUESTION.test(query);
  const scored = candidates
    .filter((c) => c.hits.size > 0 && isAnswerSentence(c.sentence.text))
    .map((c) => {
      const coverage = coverageOf(c.hits.keys()) * (0.5 + 0.5 * c.relevance);
      const density = Math.min(1, [...c.hits.values()].reduce((n, p) => n + p.length, 0) / 4);
      const rank = 1 / (1 + c.source);
      const opening = c.sentence.index < 3 ? 1 : 0;
      const length = c.sentence.text.length > 300 ? -0.05 : 0;
      const number = numeric && /\d/.test(c.sentence.text) ? 0.25 : 0;
      const continues = CONTINUATION.test(c.sentence.text);
      const previous = continues ? previousOf(c) : null;
      const inherited = previous
        ? 0.5 * coverageOf([...previous.hits.keys()].filter((lexeme) => !c.hits.has(lexeme)))
        : 0;
      // "It is ..." with nothing before it to say what "it" is reads as noise.
      const orphan = continues && !previous ? -0.3 : 0;
      return {
        c,
        previous,
        score: coverage + inherited + number + 0.05 * density + 0.15 * rank + 0.05 * opening + length + orphan,
      };
    })
    .sort((a, b) => b.score - a.score || a.c.source - b.c.source || a.c.sentence.index - b.c.sentence.index);
  if (scored.length === 0) return null;
  const limit = ANSWER_LIMITS[level].sentences;
  const floor = scored[0]!.score * (level === 'basic' ? 0.6 : 0.5);
  const chosen: AnswerCandidate[] = [];
  const add = (c: AnswerCandidate) => {
    if (chosen.includes(c) || chosen.length >= limit) return false;
    if (chosen.some((other) => nearDuplicate(other.sentence.text, c.sentence.text))) return false;
    chosen.push(c);
    return true;
  };
  for (const entry of scored) {
    if (chosen.length >= limit || entry.score < floor) break;
    if (entry.previous && !chosen.includes(entry.previous)) {
      // A continuation comes with the sentence it continues, or not at all.
      if (chosen.length + 2 > limit || !isAnswerSentence(entry.previous.sentence.text)) continue;
      if (!add(entry.previous)) continue;
    }
    add(entry.c);
  }
  chosen.sort((a, b) => a.source - b.source || a.sentence.index - b.sentence.index);
  return chosen.map((c) => c.sentence.text).join(' ');
}

/** A sentence fit to quote: prose of a reasonable length, not a heading, a list of links or a table row. */
export function isAnswerSentence(text: string): boolean {
  if (text.length < MIN_CHARS || text.length > MAX_CHARS) return false;
  // Statements only: not questions, headings or labels.
  if (!/[.!…]["'”’)\]]*$/.test(text)) return false;
  if (text.includes(' | ')) return false;
  const words = text.split(/\s+/);
  if (words.length < 5) return false;
  const letters = (text.match(/\p{L}/gu) ?? []).length;
  return letters / text.length > 0.6;
}

function wordSet(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** Jaccard similarity of the word sets above 0.6, or one contained in the other. */
export function nearDuplicate(a: string, b: string): boolean {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la.includes(lb) || lb.includes(la)) return true;
  const sa = wordSet(a);
  const sb = wordSet(b);
  let common = 0;
  for (const word of sa) if (sb.has(word)) common++;
  const union = sa.size + sb.size - common;
  return union > 0 && common / union > 0.6;
}
