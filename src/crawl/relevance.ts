/**
 * `instructions` for map and crawl: which discovered pages matter. No model is involved: the instructions are
 * reduced to terms (lower-case, stop words and request verbs such as "find" or "pages" removed, light stemming) and
 * each page is scored with BM25 over weighted fields: its URL path, the anchor texts of links to it, and, when the
 * page was fetched, its title, headings/description and content (a page whose terms are only in its content is kept
 * only when no page has them elsewhere). A term also matches a word it is a prefix of, or
 * that shares its first 6 letters (`install` ~ `installation`, `authentication` ~ `authenticate`), at a reduced
 * weight. Pages scoring at least RELATIVE_THRESHOLD of the best score are kept, best first.
 */

export interface RelevanceFields {
  /** URL path and query, tokenized as words. */
  readonly path: string;
  readonly anchors?: readonly string[];
  readonly title?: string | null;
  readonly summary?: string | null;
  readonly content?: string | null;
}

const WEIGHTS = { path: 2, anchors: 2, title: 3, summary: 1.5, content: 1 } as const;
const K1 = 1.2;
const B = 0.75;
const PARTIAL_MATCH = 0.6;
/** A link's score counts the terms of the heading above it at this weight (its own anchor and URL at 1). */
const CONTEXT_WEIGHT = 0.5;
const MAX_CONTENT_CHARS = 20_000;
/** Pages below this fraction of the best page's score are dropped. */
export const RELATIVE_THRESHOLD = 0.25;

const STOP_WORDS = new Set(
  (
    'a an and any are as at be been but by can could do does for from get give has have how i if in into is it its ' +
    'me my of on only or our please show that the their them these this those to up us was we were what when where ' +
    'which who why will with would you your all every each also just more most other some such than then there ' +
    // Words that describe the request rather than the subject.
    'find finding look looking want need collect gather return ' +
    'page pages site website websites web section sections related relevant regarding about ' +
    'information info content contents specific specifically everything anything stuff things thing focus focused ' +
    'topic topics including include includes'
  ).split(' '),
);

export function tokenize(text: string): string[] {
  const words = text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu);
  return words ? words.map(stem) : [];
}

/** A deliberately light stemmer: plural and common verb endings only. */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  if (word.endsWith('ing') && word.length > 5) return word.slice(0, -3);
  if (word.endsWith('ed') && word.length > 4) return word.slice(0, -2);
  return word;
}

export function queryTerms(instructions: string): string[] {
  const terms = instructions
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu)
    ?.filter((word) => !STOP_WORDS.has(word))
    .map(stem);
  return [...new Set(terms ?? [])].filter((term) => term.length > 1 || /\d/.test(term));
}

function partiallyMatches(term: string, word: string): boolean {
  if (term.length < 4 || word.length < 4 || term === word) return false;
  if (word.startsWith(term) || term.startsWith(word)) return true;
  return term.length >= 6 && word.length >= 6 && term.slice(0, 6) === word.slice(0, 6);
}

interface WeightedDoc {
  /** term → weighted frequency */
  readonly frequencies: Map<string, number>;
  readonly length: number;
  /** Its URL, anchors, title or headings hold a term (not only its text). */
  readonly described: boolean;
}

export class RelevanceRanker {
  readonly terms: string[];

  constructor(instructions: string) {
    this.terms = queryTerms(instructions);
  }

  /** False when the instructions hold no usable term ("all pages"): nothing is ranked or filtered then. */
  get active(): boolean {
    return this.terms.length > 0;
  }

  /**
   * How much a piece of text is about the instructions, with no corpus statistics: the number of distinct query terms
   * it holds, partial matches counting PARTIAL_MATCH. From 0 to the number of terms.
   */
  termsMatched(text: string | null | undefined): number {
    if (!text) return 0;
    const words = new Set(tokenize(text));
    let score = 0;
    for (const term of this.terms) {
      if (words.has(term)) score += 1;
      else if ([...words].some((word) => partiallyMatches(term, word))) score += PARTIAL_MATCH;
    }
    return score;
  }

  /**
   * A quick score of a link before its page is fetched, to pick which links to follow first: the terms its URL and
   * anchor text match, and, at CONTEXT_WEIGHT, those of the heading it sits under on the linking page.
   */
  linkScore(url: string, anchorText: string, context?: string): number {
    return this.termsMatched(`${pathOf(url)} ${anchorText}`) + CONTEXT_WEIGHT * this.termsMatched(context);
  }

  /**
   * How much a fetched page is about the instructions, from its own title and headings (or, when it has none of the
   * terms there, its text, at half weight): what its links inherit as the linking page's relevance.
   */
  pageScore(page: {
    readonly title?: string | null;
    readonly summary?: string | null;
    readonly content?: string | null;
  }): number {
    const heads = this.termsMatched(`${page.title ?? ''} ${page.summary ?? ''}`);
    const body = page.content ? this.termsMatched(page.content.slice(0, MAX_CONTENT_CHARS)) / 2 : 0;
    return Math.max(heads, body);
  }

  /** BM25 scores of the pages, computed over the whole set (document frequencies and lengths come from it). */
  score(pages: ReadonlyMap<string, RelevanceFields>): Map<string, number> {
    return this.scoreDocs(this.weighAll(pages));
  }

  private weighAll(pages: ReadonlyMap<string, RelevanceFields>): Map<string, WeightedDoc> {
    const docs = new Map<string, WeightedDoc>();
    for (const [id, fields] of pages) docs.set(id, this.weigh(fields));
    return docs;
  }

  private scoreDocs(docs: ReadonlyMap<string, WeightedDoc>): Map<string, number> {
    const averageLength = [...docs.values()].reduce((sum, doc) => sum + doc.length, 0) / Math.max(docs.size, 1) || 1;
    const documentFrequency = new Map<string, number>();
    for (const term of this.terms) {
      let count = 0;
      for (const doc of docs.values()) if ((doc.frequencies.get(term) ?? 0) > 0) count++;
      documentFrequency.set(term, count);
    }
    const scores = new Map<string, number>();
    for (const [id, doc] of docs) {
      let score = 0;
      for (const term of this.terms) {
        const tf = doc.frequencies.get(term) ?? 0;
        if (tf === 0) continue;
        const n = documentFrequency.get(term) ?? 0;
        const idf = Math.log(1 + (docs.size - n + 0.5) / (n + 0.5));
        score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / averageLength));
      }
      scores.set(id, score);
    }
    return scores;
  }

  /**
   * The ids worth keeping, best first (ties keep the input order). A page that holds the terms only in its text (not
   * in its URL, anchors, title or headings) mentions the subject rather than being about it, as a site's index lists
   * every word of the site: such pages are kept only when no page is about it.
   */
  rank(pages: ReadonlyMap<string, RelevanceFields>): string[] {
    const docs = this.weighAll(pages);
    const scores = this.scoreDocs(docs);
    const anyDescribed = [...docs].some(([id, doc]) => doc.described && (scores.get(id) ?? 0) > 0);
    const kept = [...pages.keys()].filter((id) => !anyDescribed || docs.get(id)!.described);
    const best = Math.max(0, ...kept.map((id) => scores.get(id) ?? 0));
    if (best <= 0) return [];
    const position = new Map([...pages.keys()].map((id, index) => [id, index]));
    return kept
      .filter((id) => (scores.get(id) ?? 0) >= best * RELATIVE_THRESHOLD)
      .sort((a, b) => (scores.get(b) ?? 0) - (scores.get(a) ?? 0) || position.get(a)! - position.get(b)!);
  }

  private weigh(fields: RelevanceFields): WeightedDoc {
    const frequencies = new Map<string, number>();
    let length = 0;
    const add = (text: string | null | undefined, weight: number) => {
      if (!text) return;
      const words = tokenize(text);
      length += words.length * weight;
      const counts = new Map<string, number>();
      for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
      for (const term of this.terms) {
        let tf = counts.get(term) ?? 0;
        for (const [word, count] of counts) if (partiallyMatches(term, word)) tf += count * PARTIAL_MATCH;
        if (tf > 0) frequencies.set(term, (frequencies.get(term) ?? 0) + tf * weight);
      }
    };
    add(fields.path, WEIGHTS.path);
    add(fields.anchors?.join(' '), WEIGHTS.anchors);
    add(fields.title, WEIGHTS.title);
    add(fields.summary, WEIGHTS.summary);
    const described = frequencies.size > 0;
    add(fields.content?.slice(0, MAX_CONTENT_CHARS), WEIGHTS.content);
    return { frequencies, length, described };
  }
}

/** The words of a URL that describe it: path and query, without the host (shared by every page of a site). */
export function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    return decodeURIComponentSafe(`${parsed.pathname} ${parsed.search}`).replace(/\.(html?|php|aspx?)\b/g, ' ');
  } catch {
    return url;
  }
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
