import type { LocalIndex, QueryAnalysis, TextHits } from '../index/local-index.js';
import { markdownToText } from '../text/markdown-text.js';
import { type Passage, type ScoredSentence, chunk, mayContainTerms } from '../text/passages.js';
import { proseSentences } from '../text/sentences.js';

/**
 * Passages come from the first this-many characters of a text, for every candidate alike (the answer is due soon
 * after the reading deadline, and twenty long pages must not delay it).
 */
const MAX_TEXT_FOR_PASSAGES = 30_000;

/** One text as ranking reads it: its passages with the query's lexemes found in them. */
export interface TextEvidence {
  readonly passages: Passage[];
  readonly titleHits: TextHits;
  /** Lexemes found anywhere in the text or the title. */
  readonly found: ReadonlySet<string>;
}

export interface TextToRead {
  readonly title: string;
  /** Markdown (a page) or plain text (a snippet). */
  readonly text: string;
  readonly markdown: boolean;
}

/**
 * The query's side of ranking: its analysis by the local index (term weights, translations) and the reading of texts
 * for it. Texts are read as they come (a page as soon as it has been read), each batch in one database round trip.
 */
export class QueryEvidence {
  private readonly lexemes: string[];
  private readonly mayMatch: (text: string) => boolean;

  constructor(
    private readonly index: LocalIndex,
    readonly analysis: QueryAnalysis,
  ) {
    this.lexemes = [
      ...new Set([...analysis.terms.map((t) => t.lexeme), ...analysis.translations.map((t) => t.target)]),
    ];
    this.mayMatch = mayContainTerms(this.lexemes);
  }

  async read(texts: readonly TextToRead[]): Promise<TextEvidence[]> {
    const split = texts.map((t) => {
      const text = t.text.slice(0, MAX_TEXT_FOR_PASSAGES);
      return proseSentences(t.markdown ? markdownToText(text) : text);
    });
    // sentence -1: the title
    const pending: { doc: number; sentence: number; text: string }[] = [];
    split.forEach((sentences, doc) => {
      const title = texts[doc]!.title;
      if (title && this.mayMatch(title)) pending.push({ doc, sentence: -1, text: title });
      sentences.forEach((s, sentence) => {
        if (this.mayMatch(s.text)) pending.push({ doc, sentence, text: s.text });
      });
    });
    const hits = await this.index.analyzeTexts(
      pending.map((p) => p.text),
      this.lexemes,
    );
    const scored: ScoredSentence[][] = split.map((sentences) => sentences.map((s) => ({ ...s, hits: new Map() })));
    const titleHits: TextHits[] = texts.map(() => new Map());
    const found = texts.map(() => new Set<string>());
    pending.forEach((p, i) => {
      const lexemesHit = hits[i]!;
      for (const lexeme of lexemesHit.keys()) found[p.doc]!.add(lexeme);
      if (p.sentence < 0) titleHits[p.doc] = lexemesHit;
      else scored[p.doc]![p.sentence] = { ...split[p.doc]![p.sentence]!, hits: lexemesHit };
    });
    return texts.map((_, i) => ({ passages: chunk(scored[i]!), titleHits: titleHits[i]!, found: found[i]! }));
  }
}
