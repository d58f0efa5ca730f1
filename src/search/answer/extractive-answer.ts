import type { TextHits } from '../index/local-index.js';
import type { Sentence } from '../text/sentences.js';
import {
  type QuestionForm,
  definesSubject,
  givesReason,
  hasDate,
  hasQuantity,
  isChangeLogEntry,
  namedIdentifiers,
  quantityFocus,
  questionForm,
} from './question-form.js';

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
  /** The heading the sentence opens a passage under (a term's entry in reference pages, a glossary), if any. */
  readonly heading?: string | null;
  /** The query's lexemes found in that heading. */
  readonly headingHits?: TextHits;
}

const MIN_CHARS = 25;
const MAX_CHARS = 400;
/** The query weight the best sentence (with its heading) must cover for an answer; below it, no answer. */
const MIN_COVERAGE = 0.5;
/** Score for a sentence of the form the question asks for (a definition, a number, a date, a reason). */
const FORM_BONUS = 0.4;
const CHANGE_LOG_PENALTY = 0.3;

/** A sentence that continues the previous one's subject. */
export const CONTINUATION = /^(it|its|they|their|this|these|that|he|she|his|her)\b/i;

/**
 * An extractive answer: the result sentences that answer the question's form (question-form.ts: a definition of
 * its subject for "what is / what does", a number or a setting's value for "how many / what is the default", a date
 * for "when", a reason for "why") and cover its terms best (by IDF weight, a heading naming the subject counting
 * for the sentence under it), favouring better results, a page's opening sentences, and a sentence that continues
 * ("It is ...") one about the query's subject (which then comes along); without near-duplicates, in reading order.
 * Every sentence is quoted verbatim from a result. Null rather than a wrong answer: when no sentence of the asked
 * form covers enough of the query.
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
    [...new Set(lexemes)].reduce((sum, lexeme) => sum + (weights.get(lexeme) ?? 0), 0) / total;
  const byPosition = new Map(candidates.map((c) => [`${c.source}:${c.sentence.index}`, c]));
  const previousOf = (c: AnswerCandidate) => {
    const previous = byPosition.get(`${c.source}:${c.sentence.index - 1}`);
    return previous && previous.sentence.block === c.sentence.block ? previous : null;
  };
  const form = questionForm(query);
  const identifiers = namedIdentifiers(query);
  const focus = form === 'quantity' ? quantityFocus(query) : null;
  const namesThem = (c: AnswerCandidate) => {
    const text = `${c.heading ?? ''} ${c.sentence.text}`.toLowerCase();
    return identifiers.every((name) => text.includes(name)) && (!focus || text.includes(focus));
  };
  const scored = candidates
    .filter((c) => (c.hits.size > 0 || (c.headingHits?.size ?? 0) > 0) && isQuotable(c, form) && namesThem(c))
    .map((c) => {
      const lexemes = [...c.hits.keys(), ...(c.headingHits?.keys() ?? [])];
      const covered = coverageOf(lexemes);
      const coverage = covered * (0.5 + 0.5 * c.relevance);
      const density = Math.min(1, [...c.hits.values()].reduce((n, p) => n + p.length, 0) / 4);
      const rank = 1 / (1 + c.source);
      const opening = c.sentence.index < 3 ? 1 : 0;
      const length = c.sentence.text.length > 300 ? -0.05 : 0;
      const continues = CONTINUATION.test(c.sentence.text);
      const previous = continues ? previousOf(c) : null;
      const inherited = previous
        ? 0.5 * coverageOf([...previous.hits.keys()].filter((lexeme) => !c.hits.has(lexeme)))
        : 0;
      // "It is ..." with nothing before it to say what "it" is reads as noise.
      const orphan = continues && !previous ? -0.3 : 0;
      const fits = fitsForm(c, form, previous);
      const changeLog = isChangeLogEntry(c.sentence.text) ? -CHANGE_LOG_PENALTY : 0;
      return {
        c,
        previous,
        fits,
        covered: covered + (previous ? inherited * 2 : 0),
        score:
          coverage +
          inherited +
          (fits && form !== 'other' && (form !== 'reason' || givesReason(c.sentence.text)) ? FORM_BONUS : 0) +
          0.05 * density +
          0.15 * rank +
          0.05 * opening +
          length +
          orphan +
          changeLog,
      };
    })
    // The lead sentence is of the asked form; a longer (advanced) answer may go on with sentences about the subject.
    .filter((entry) => entry.fits || (level === 'advanced' && aboutSubject(entry.c)))
    .sort((a, b) => b.score - a.score || a.c.source - b.c.source || a.c.sentence.index - b.c.sentence.index);
  const best = scored.find((entry) => entry.fits);
  // A question's answer must cover it; keywords ask for no form, and their best sentence is the page's own summary.
  const minCoverage = form === 'other' ? 0 : MIN_COVERAGE;
  if (!best || best.covered < minCoverage) return null;
  const limit = ANSWER_LIMITS[level].sentences;
  const floor = best.score * (level === 'basic' ? 0.6 : 0.5);
  const chosen: AnswerCandidate[] = [];
  const add = (c: AnswerCandidate) => {
    if (chosen.includes(c) || chosen.length >= limit) return false;
    if (chosen.some((other) => nearDuplicate(other.sentence.text, c.sentence.text))) return false;
    chosen.push(c);
    return true;
  };
  if (best.previous && isAnswerSentence(best.previous.sentence.text)) add(best.previous);
  add(best.c);
  for (const entry of scored) {
    if (chosen.length >= limit || entry.score < floor) break;
    if (entry.covered < minCoverage || entry === best) continue;
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

/** The first word position of a query lexeme in the sentence, or null. */
function firstHit(hits: TextHits): number | null {
  let first: number | null = null;
  for (const positions of hits.values()) {
    for (const position of positions) if (first === null || position < first) first = position;
  }
  return first;
}

/** A sentence whose subject is the query's: a query term among its first three words, and not a change-log entry. */
function aboutSubject(c: AnswerCandidate): boolean {
  const first = firstHit(c.hits);
  return first !== null && first <= 3 && !isChangeLogEntry(c.sentence.text);
}

/** Whether a sentence gives what the question's form asks for ('reason' and 'other' questions take any sentence). */
function fitsForm(c: AnswerCandidate, form: QuestionForm, previous: AnswerCandidate | null): boolean {
  const text = c.sentence.text;
  const underHeading = (c.headingHits?.size ?? 0) > 0;
  switch (form) {
    case 'definition':
      // A continuation ("It is …") defines what the sentence before it named.
      if (previous) return !isChangeLogEntry(previous.sentence.text);
      return !isChangeLogEntry(text) && definesSubject(text, firstHit(c.hits), underHeading);
    case 'quantity':
      return hasQuantity(text);
    case 'date':
      return hasDate(text);
    default:
      return true;
  }
}

/**
 * A sentence fit to quote (isAnswerSentence); under a heading naming the question's subject, also a value line
 * ("Default: 1209600 (2 weeks, in seconds)") for a quantity question and a date line ("December 2, 2019") for a
 * date question.
 */
function isQuotable(c: AnswerCandidate, form: QuestionForm): boolean {
  const text = c.sentence.text;
  if (isAnswerSentence(text)) return true;
  if (!c.headingHits || c.headingHits.size === 0 || text.length > 120) return false;
  if (form === 'quantity') return /^default:\s\S/i.test(text);
  if (form === 'date') return hasDate(text) && text.length <= 60;
  return false;
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
