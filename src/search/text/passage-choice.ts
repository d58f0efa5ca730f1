import type { Translation } from '../index/term-translations.js';
import {
  CHUNK_SEPARATOR,
  MAX_PASSAGE_CHARS,
  type Passage,
  type ScoredSentence,
  chunk,
  spanWeight,
  truncate,
} from './passages.js';

/**
 * The passages a result's `content` shows, chosen sentence first (issue 40: choosing fixed chunks lost the sentence
 * that ranking had found). Fixed, non-overlapping chunks are scored as wholes, so a chunk of several sentences that
 * each hold a common query word outscores the chunk holding the one sentence that holds the query's rare words, and
 * that sentence may sit at a chunk's edge. Here each sentence is scored on its own by the evidence model that ranks
 * documents (BM25 with the index's IDF, saturated term frequency, proximity within the sentence), the best sentences
 * become seeds, and each seed is kept whole and grown into a window of its neighbours (the better-scoring side
 * first) up to MAX_PASSAGE_CHARS. Windows never overlap; the best window comes first.
 */
export function choosePassages(
  sentences: readonly ScoredSentence[],
  weights: ReadonlyMap<string, number>,
  translations: readonly Translation[],
  count: number,
): Passage[] {
  const scores = sentences.map((s) => (s.hits.size > 0 ? spanWeight([s], weights, translations) : 0));
  const taken = new Uint8Array(sentences.length);
  const seeds = sentences
    .map((_, i) => i)
    .filter((i) => scores[i]! > 0)
    .sort((a, b) => scores[b]! - scores[a]! || a - b);
  const chosen: Passage[] = [];
  for (const seed of seeds) {
    if (chosen.length >= Math.max(1, count)) break;
    if (taken[seed]) continue;
    const window = grow(sentences, scores, taken, seed);
    for (let i = window.from; i <= window.to; i++) taken[i] = 1;
    const span = sentences.slice(window.from, window.to + 1);
    chosen.push({
      text: truncate(span.map((s) => s.text).join(' ')),
      sentences: span,
      start: span[0]!.start,
      score: spanWeight(span, weights, translations),
    });
  }
  return chosen;
}

/**
 * The seed and its free neighbours, at most MAX_PASSAGE_CHARS joined: at each step the side whose next sentence
 * scores more (the following one on a tie), until neither side's next sentence is free and fits.
 */
function grow(
  sentences: readonly ScoredSentence[],
  scores: readonly number[],
  taken: Uint8Array,
  seed: number,
): { from: number; to: number } {
  let from = seed;
  let to = seed;
  let length = sentences[seed]!.text.length;
  const fits = (i: number) =>
    i >= 0 && i < sentences.length && !taken[i] && length + 1 + sentences[i]!.text.length <= MAX_PASSAGE_CHARS;
  for (;;) {
    const before = fits(from - 1);
    const after = fits(to + 1);
    if (!before && !after) break;
    const takeAfter = after && (!before || scores[to + 1]! >= scores[from - 1]!);
    const next = takeAfter ? ++to : --from;
    length += 1 + sentences[next]!.text.length;
  }
  return { from, to };
}

/**
 * A result's `content`: its `count` best sentence windows (choosePassages) joined with CHUNK_SEPARATOR, or the
 * text's opening passage when no sentence holds a query term.
 */
export function passageContent(
  sentences: readonly ScoredSentence[],
  weights: ReadonlyMap<string, number>,
  translations: readonly Translation[],
  count: number,
): string {
  const chosen = choosePassages(sentences, weights, translations, count);
  return chosen.length > 0 ? chosen.map((p) => p.text).join(CHUNK_SEPARATOR) : (chunk(sentences)[0]?.text ?? '');
}
