import { lengthNorm, proximityAccumulators, proximityBonus, saturate } from '../index/bm25.js';
import type { TextHits } from '../index/local-index.js';
import type { Translation } from '../index/term-translations.js';
import type { Sentence } from './sentences.js';
import { foldAccents, stemPrefixes } from './words.js';
import { trimEndChars } from '../../common/linear-text.js';

/** The longest snippet or chunk, in characters. */
export const MAX_PASSAGE_CHARS = 500;
export const CHUNK_SEPARATOR = ' [...] ';
/** Passages are all of about one length (at most MAX_PASSAGE_CHARS): milder length normalisation than documents. */
const PASSAGE_B = 0.5;

/** A sentence with the positions of the query's lexemes in it (empty when it has none). */
export interface ScoredSentence extends Sentence {
  readonly hits: TextHits;
}

/** Consecutive sentences of one document, at most MAX_PASSAGE_CHARS long when joined. */
export interface Passage {
  readonly text: string;
  readonly sentences: readonly ScoredSentence[];
  /** Where the passage starts in the document (for reading order). */
  readonly start: number;
  score: number;
}

/**
 * A cheap test for "may contain a query term", so that only such sentences are analysed: a word starting with a
 * lexeme's stem (see stemPrefixes).
 */
export function mayContainTerms(lexemes: readonly string[]): (text: string) => boolean {
  const stems = stemPrefixes(lexemes);
  if (stems.length === 0) return () => false;
  const escaped = stems.map((stem) => stem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // When every stem starts with an ASCII letter or digit: ASCII word boundaries on folded, lower-cased text, a few
  // times faster than a Unicode-aware pattern and only ever more permissive (a letter outside ASCII counts as a
  // boundary). Other scripts need the Unicode classes.
  const pattern = stems.every((stem) => /^\w/.test(stem))
    ? new RegExp(`\\b(?:${escaped.join('|')})`)
    : new RegExp(`(?:^|[^\\p{L}\\p{N}])(?:${escaped.join('|')})`, 'u');
  return (text) => pattern.test(foldAccents(text).toLowerCase());
}

/** Cuts text to at most `max` characters at a word boundary, with an ellipsis when cut. */
export function truncate(text: string, max = MAX_PASSAGE_CHARS): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${trimEndChars((space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd(), ',;:.')}…`;
}

const joinSentences = (sentences: readonly Sentence[]) => truncate(sentences.map((s) => s.text).join(' '));

/**
 * A span's term frequencies per query lexeme (its translations' occurrences counted at their share, as ranking counts
 * them) and the query lexemes' own occurrences for proximity (in sentence order: sentences far apart in position
 * space, so that proximity never spans two of them).
 */
function spanTerms(
  parts: readonly { hits: TextHits }[],
  weights: ReadonlyMap<string, number>,
  translations: readonly Translation[],
): { tf: Map<string, number>; occurrences: { lexeme: string; position: number }[] } {
  const counts = new Map<string, number>();
  const occurrences: { lexeme: string; position: number }[] = [];
  parts.forEach((part, i) => {
    for (const [lexeme, positions] of part.hits) {
      counts.set(lexeme, (counts.get(lexeme) ?? 0) + positions.length);
      if (!weights.has(lexeme)) continue;
      for (const position of positions) occurrences.push({ lexeme, position: i * 100_000 + position });
    }
  });
  const tf = new Map<string, number>();
  for (const lexeme of weights.keys()) if (counts.has(lexeme)) tf.set(lexeme, counts.get(lexeme)!);
  for (const { source, target, share } of translations) {
    const count = counts.get(target);
    if (count) tf.set(source, (tf.get(source) ?? 0) + share * count);
  }
  return { tf, occurrences };
}

/** Term weight of a span: Σ weight · saturated tf, plus proximity within its sentences; no length normalisation. */
export function spanWeight(
  sentences: readonly ScoredSentence[],
  weights: ReadonlyMap<string, number>,
  translations: readonly Translation[] = [],
): number {
  const { tf, occurrences } = spanTerms(sentences, weights, translations);
  let score = 0;
  for (const [lexeme, count] of tf) score += saturate(weights.get(lexeme) ?? 0, count);
  return score + proximityBonus(proximityAccumulators(occurrences, weights), weights, 1);
}

/**
 * The snippet of a document: the window of consecutive sentences (at most MAX_PASSAGE_CHARS) with the most
 * query-term weight; the document's opening when no sentence has a query term.
 */
export function bestWindow(
  sentences: readonly ScoredSentence[],
  weights: ReadonlyMap<string, number>,
  translations: readonly Translation[] = [],
): Passage | null {
  if (sentences.length === 0) return null;
  let best: Passage | null = null;
  for (let i = 0; i < sentences.length; i++) {
    if (sentences[i]!.hits.size === 0) continue;
    // Windows start one sentence before a hit at most: context first, then the hit.
    for (const from of i > 0 ? [i - 1, i] : [i]) {
      const window = extend(sentences, from);
      const score = spanWeight(window, weights, translations);
      if (!best || score > best.score + 1e-9) {
        best = { text: joinSentences(window), sentences: window, start: window[0]!.start, score };
      }
    }
  }
  if (best) return best;
  const opening = extend(sentences, 0);
  return { text: joinSentences(opening), sentences: opening, start: 0, score: 0 };
}

function extend(sentences: readonly ScoredSentence[], from: number): ScoredSentence[] {
  const window = [sentences[from]!];
  let length = sentences[from]!.text.length;
  for (let j = from + 1; j < sentences.length; j++) {
    const next = sentences[j]!.text.length + 1;
    if (length + next > MAX_PASSAGE_CHARS) break;
    window.push(sentences[j]!);
    length += next;
  }
  return window;
}

/** A document cut into consecutive, non-overlapping passages of at most MAX_PASSAGE_CHARS (whole sentences). */
export function chunk(sentences: readonly ScoredSentence[]): Passage[] {
  const passages: Passage[] = [];
  let current: ScoredSentence[] = [];
  let length = 0;
  const flush = () => {
    if (current.length === 0) return;
    passages.push({ text: joinSentences(current), sentences: current, start: current[0]!.start, score: 0 });
    current = [];
    length = 0;
  };
  for (const sentence of sentences) {
    if (current.length > 0 && length + 1 + sentence.text.length > MAX_PASSAGE_CHARS) flush();
    length += (current.length > 0 ? 1 : 0) + sentence.text.length;
    current.push(sentence);
  }
  flush();
  return passages;
}

/**
 * BM25 over passages (IDF from the whole index, length in characters normalised by the average passage of the
 * candidates) plus proximity: sets each passage's score.
 */
export function scorePassages(
  passages: readonly Passage[],
  weights: ReadonlyMap<string, number>,
  /** The title of each passage's page (by passage), scored with the passage as its heading would be. */
  context: ReadonlyMap<Passage, TextHits> = new Map(),
  translations: readonly Translation[] = [],
): void {
  if (passages.length === 0) return;
  const average = passages.reduce((sum, p) => sum + p.text.length, 0) / passages.length;
  for (const passage of passages) {
    const norm = lengthNorm(passage.text.length, average, PASSAGE_B);
    const title = context.get(passage);
    const parts = title && title.size > 0 ? [{ hits: title }, ...passage.sentences] : passage.sentences;
    const { tf, occurrences } = spanTerms(parts, weights, translations);
    let score = 0;
    for (const [lexeme, count] of tf) score += saturate(weights.get(lexeme) ?? 0, count / norm);
    passage.score = score + proximityBonus(proximityAccumulators(occurrences, weights), weights, norm);
  }
}
