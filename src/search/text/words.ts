/** One word of a text and its position (1-based, counted in words as PostgreSQL's to_tsvector counts them). */
export interface Word {
  /** Lower-cased. */
  readonly word: string;
  /** As written (the index's analysis reads case: search_text, migration 026). */
  readonly written: string;
  readonly position: number;
}

/**
 * Runs of letters and digits (a decimal number such as `3.5` is one word), lower-cased. Close to PostgreSQL's default
 * text-search parser for prose, which is what positions and term frequencies of passages need; the parser's
 * compound tokens (`long-term` besides `long` and `term`, URLs, e-mail addresses) are not reproduced.
 */
const WORD = /[\p{L}\p{M}\p{N}]+(?:\.\p{N}+)*/gu;

export function words(text: string): Word[] {
  const found: Word[] = [];
  let position = 0;
  for (const match of text.matchAll(WORD)) {
    found.push({ word: match[0].toLowerCase(), written: match[0], position: ++position });
  }
  return found;
}

/** Strips accents for prefix comparisons (Snowball stems keep them; the prefilter only needs to be permissive). */
export const foldAccents = (text: string) =>
  NOT_PRINTABLE_ASCII.test(text) ? text.normalize('NFKD').replace(/\p{M}+/gu, '') : text;

const NOT_PRINTABLE_ASCII = /[^ -~\s]/;

/**
 * The prefixes a word must start with to stem to one of `lexemes` (Snowball stems are prefixes of their words, but for
 * a final y → i), accent-folded and lower-cased.
 */
export function stemPrefixes(lexemes: readonly string[]): string[] {
  return [
    ...new Set(
      lexemes.map((lexeme) =>
        foldAccents(lexeme.length > 3 && lexeme.endsWith('i') ? lexeme.slice(0, -1) : lexeme).toLowerCase(),
      ),
    ),
  ].filter(Boolean);
}
