import { bm25Scores } from './bm25.js';

export const MAX_CHUNK_CHARS = 500;
export const CHUNK_SEPARATOR = ' [...] ';

/**
 * Splits content into chunks of at most `maxChars` characters: whole paragraphs packed together while they fit, a
 * longer paragraph split between sentences, and a longer sentence between words.
 */
export function splitIntoChunks(content: string, maxChars = MAX_CHUNK_CHARS): string[] {
  const pieces = content
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .flatMap((paragraph) => (paragraph.length <= maxChars ? [paragraph] : splitParagraph(paragraph, maxChars)));
  const chunks: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current && current.length + 2 + piece.length > maxChars) {
      chunks.push(current);
      current = '';
    }
    current = current ? `${current}\n\n${piece}` : piece;
  }
  if (current) chunks.push(current);
  return chunks;
}

function splitParagraph(paragraph: string, maxChars: number): string[] {
  const sentences = paragraph.split(/(?<=[.!?…。！？])\s+|\n/).filter((s) => s.trim());
  const parts: string[] = [];
  let current = '';
  for (const sentence of sentences.flatMap((s) => (s.length <= maxChars ? [s] : splitWords(s, maxChars)))) {
    if (current && current.length + 1 + sentence.length > maxChars) {
      parts.push(current);
      current = '';
    }
    current = current ? `${current} ${sentence}` : sentence;
  }
  if (current) parts.push(current);
  return parts;
}

function splitWords(sentence: string, maxChars: number): string[] {
  const parts: string[] = [];
  let current = '';
  for (const word of sentence.split(/\s+/)) {
    for (let i = 0; i < word.length; i += maxChars) {
      const piece = word.slice(i, i + maxChars);
      if (current && current.length + 1 + piece.length > maxChars) {
        parts.push(current);
        current = '';
      }
      current = current ? `${current} ${piece}` : piece;
    }
  }
  if (current) parts.push(current);
  return parts;
}

/**
 * The `count` chunks of `content` most relevant to `query` (BM25 over the page's own chunks), in the order they
 * appear, joined with ` [...] `. With no chunk matching the query, the first `count` chunks.
 */
export function relevantChunks(content: string, query: string, count: number): string {
  const chunks = splitIntoChunks(content);
  if (chunks.length <= count) return chunks.join(CHUNK_SEPARATOR);
  const scores = bm25Scores(chunks, query);
  const chosen = chunks
    .map((chunk, index) => ({ index, score: scores[index] ?? 0 }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, count)
    .sort((a, b) => a.index - b.index);
  return chosen.map(({ index }) => chunks[index]).join(CHUNK_SEPARATOR);
}
