import { tokenize } from './tokenize.js';

const K1 = 1.2;
const B = 0.75;

/** Okapi BM25 scores of `documents` for `query`, with IDF over those documents. */
export function bm25Scores(documents: readonly string[], query: string): number[] {
  const terms = [...new Set(tokenize(query))];
  const docs = documents.map((text) => {
    const counts = new Map<string, number>();
    const tokens = tokenize(text);
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    return { counts, length: tokens.length };
  });
  const n = docs.length;
  const averageLength = docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, n) || 1;
  const idf = new Map(
    terms.map((term) => {
      const df = docs.filter((d) => d.counts.has(term)).length;
      return [term, Math.log(1 + (n - df + 0.5) / (df + 0.5))];
    }),
  );
  return docs.map(({ counts, length }) =>
    terms.reduce((score, term) => {
      const tf = counts.get(term) ?? 0;
      if (tf === 0) return score;
      return score + (idf.get(term) ?? 0) * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / averageLength)));
    }, 0),
  );
}
