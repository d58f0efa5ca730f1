/**
 * Whether a result's text holds an evidence sentence. Both are compared as word sequences: lower-case letters and
 * digits (after Unicode NFKC), everything else a separator, so markdown escapes, punctuation, quotes and line breaks
 * do not matter. A sentence counts when at least 80 % of its words appear in order within a stretch of the text no
 * longer than the sentence plus a fifth (a sentence cut short by a passage boundary, or with a word changed, still
 * counts; the same words scattered over a page do not).
 */
export const MATCH_SHARE = 0.8;

export function words(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** Longest common subsequence length of two word arrays. */
function lcs(a: readonly string[], b: readonly string[]): number {
  let previous = new Uint16Array(b.length + 1);
  let current = new Uint16Array(b.length + 1);
  for (const word of a) {
    for (let j = 1; j <= b.length; j++) {
      current[j] = word === b[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, current[j - 1]!);
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length]!;
}

export function containsSentence(textWords: readonly string[], sentence: string): boolean {
  const target = words(sentence);
  if (target.length === 0) return false;
  const needed = Math.ceil(target.length * MATCH_SHARE);
  const vocabulary = new Set(target);
  // Cheap test first: enough of the sentence's words must occur in the text at all.
  const present = new Set(textWords.filter((word) => vocabulary.has(word)));
  if (target.filter((word) => present.has(word)).length < needed) return false;
  const window = target.length + Math.ceil(target.length / 5);
  for (let start = 0; start < textWords.length; start++) {
    if (!vocabulary.has(textWords[start]!)) continue;
    if (lcs(target, textWords.slice(start, start + window)) >= needed) return true;
  }
  return false;
}

/** Whether any of the texts holds any of the sentences. */
export function holdsEvidence(texts: readonly string[], sentences: readonly string[]): boolean {
  return texts.some((text) => {
    const textWords = words(text);
    return sentences.some((sentence) => containsSentence(textWords, sentence));
  });
}
