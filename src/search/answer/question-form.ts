import { trimEndChars } from '../../common/linear-text.js';

/**
 * What kind of answer a question asks for, from its first words: a definition ("what is X", "what does X do"), a
 * quantity or a setting's value ("how many", "what is the default X", "which port"), a date ("when", "what year"), a
 * reason ("why"), or anything else (keywords, "how do I …").
 */
export type QuestionForm = 'definition' | 'quantity' | 'date' | 'reason' | 'other';

const DATE = /^\s*(when\b|what (year|date|day|month)\b|in what year\b|since when\b)/i;
const QUANTITY =
  /^\s*(how (long|much|many|old|big|large|tall|high|far|deep|fast|often|heavy|wide|small)\b|what (is|was|are) the (default|population|size|length|height|price|cost|number|maximum|minimum|limit)\b|which (port|version|versions|number)\b|what (port|version|versions|number)\b)/i;
const DEFINITION =
  /^\s*(what(’s|'s| is| are| was| were| does| do)\b|who (is|was|are)\b|define\b|meaning of\b|what is meant by\b)/i;
const REASON = /^\s*(why\b|what (causes|caused)\b)/i;

export function questionForm(query: string): QuestionForm {
  if (DATE.test(query)) return 'date';
  if (QUANTITY.test(query)) return 'quantity';
  if (REASON.test(query)) return 'reason';
  if (DEFINITION.test(query)) return 'definition';
  return 'other';
}

/** Verbs that, soon after a sentence's subject, say what it is or does ("X is …", "X returns …"). */
const DEFINING_VERBS = new Set([
  'is',
  'are',
  'represents',
  'represent',
  'refers',
  'means',
  'denotes',
  'lets',
  'allows',
  'enables',
  'returns',
  'provides',
  'helps',
  'contains',
  'takes',
  'calls',
  'creates',
  'collects',
  'inserts',
  'includes',
  'describes',
  'defines',
  'stores',
  'handles',
  'performs',
  'converts',
  'generates',
  'gives',
  'acts',
  'consists',
  'works',
  'makes',
  'runs',
]);

/** Words of a sentence's start, lower-cased, letters only. */
function leadingWords(text: string, count: number): string[] {
  return text
    .split(/\s+/, count)
    .map((word) => word.toLowerCase().replace(/[^\p{L}]/gu, ''))
    .filter((word) => word.length > 0);
}

/**
 * Whether a sentence reads as a definition of its subject: a query term among its first words, followed within a
 * few words by a defining verb ("Middleware is a framework of hooks …"); or a sentence that opens a passage under a
 * heading naming the subject and starts with such a verb or an article ("Returns a QuerySet that …", "A short label
 * for …").
 */
export function definesSubject(text: string, firstHit: number | null, underHeading: boolean): boolean {
  const words = leadingWords(text, 12);
  if (underHeading) {
    const first = words[0] ?? '';
    if (DEFINING_VERBS.has(first) || first === 'a' || first === 'an' || first === 'the' || first === 'it') return true;
  }
  if (firstHit === null || firstHit > 4) return false;
  return words.slice(firstHit, firstHit + 6).some((word) => DEFINING_VERBS.has(word));
}

const MONTHS =
  /\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?)\b/i;

/** A date: a month's name with a number, an ISO date, or a year (1000–2999). */
export function hasDate(text: string): boolean {
  if (/\b\d{4}-\d{2}-\d{2}\b/.test(text)) return true;
  if (MONTHS.test(text) && /\d/.test(text)) return true;
  return /\b(1\d{3}|2\d{3})\b/.test(text);
}

const NUMBER_WORDS =
  /\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundreds?|thousands?|millions?|billions?|dozens?|half|twice|once)\b/i;

/** A number (in digits or words), or a setting's value ("Default: 'en-us'", "defaults to 300"). */
export function hasQuantity(text: string): boolean {
  return /\d/.test(text) || NUMBER_WORDS.test(text) || /^default:\s/i.test(text) || /\bdefaults? (to|is)\b/i.test(text);
}

/** A sentence that gives a reason (for "why" questions a bonus, not a condition: reasons are often implicit). */
export function givesReason(text: string): boolean {
  return /\b(because|since|so that|due to|as a result|in order to|therefore|thus|which means|causes?|caused|leads? to)\b/i.test(
    text,
  );
}

/** A change-log entry ("Fixed a crash …", "Added support for …"): it mentions a thing, it does not explain it. */
export function isChangeLogEntry(text: string): boolean {
  return /^(fixed|added|removed|prevented|corrected|allowed|deprecated|dropped|improved|changed|restored|reverted|updated)\b/i.test(
    text.trim(),
  );
}

/**
 * The identifiers a question names, lower-cased and without a call's `()`: words with an underscore, an inner dot or
 * an inner capital, or ending in `()` (`select_related`, `SESSION_COOKIE_AGE`, `QuerySet`, `filter()`). A sentence
 * answers such a question only if it (or its heading) names them too: a sentence about `SESSION_COOKIE_DOMAIN`
 * shares most of `SESSION_COOKIE_AGE`'s words and says nothing of it.
 */
export function namedIdentifiers(query: string): string[] {
  const names = new Set<string>();
  for (const raw of query.split(/\s+/)) {
    const token = trimEndChars(raw.replace(/^[^\p{L}\p{N}_]+/u, ''), '?!,;:\'"”’');
    const call = token.endsWith('()');
    const name = call ? token.slice(0, -2) : token.replace(/\.$/, '');
    if (name.length < 2) continue;
    if (call || name.includes('_') || /\p{L}\.\p{L}/u.test(name) || /\p{Ll}\p{Lu}/u.test(name)) {
      names.add(name.toLowerCase());
    }
  }
  return [...names];
}

const QUANTITY_FOCUS =
  /^\s*(?:how (?:many|much) (\p{L}+)|what (?:is|was|are) the (population|size|length|height|price|cost|number|maximum|minimum|limit)\b)/iu;

/**
 * What a quantity question counts ("how many iterations" → iterations, "what is the population of …" →
 * population), as a lower-case prefix that its inflections share; null when the question names none. A number
 * answers it only next to that word: "170 kilometres per hour … France" does not give France's population.
 */
export function quantityFocus(query: string): string | null {
  const match = QUANTITY_FOCUS.exec(query);
  const word = (match?.[1] ?? match?.[2])?.toLowerCase();
  if (!word || ['of', 'the', 'a', 'an', 'time', 'data', 'do', 'does', 'is', 'are'].includes(word)) return null;
  return word.length > 5 ? word.slice(0, Math.max(5, word.length - 3)) : word;
}
