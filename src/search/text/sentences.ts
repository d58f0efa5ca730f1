/** One sentence of a plain text: a verbatim substring of it (`text === source.slice(start, end)`). */
export interface Sentence {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** Index of the line (block) the sentence is on: sentences never span lines. */
  readonly block: number;
  /** Index among the text's sentences. */
  readonly index: number;
}

/** Words whose trailing period does not end a sentence. */
const ABBREVIATIONS = new Set(
  (
    'mr mrs ms dr prof sr jr st mt ft vs etc al fig figs eq eqs no nos vol vols pp ch sec approx ca cf ' +
    'inc ltd co corp jan feb mar apr jun jul aug sep sept oct nov dec e.g i.e u.s u.k a.m p.m ph.d'
  ).split(' '),
);

const MAX_SENTENCES = 5000;

/**
 * Splits plain text into sentences: every line is a block, and a block splits after `.`, `!` or `?` (and closing
 * quotes or brackets) followed by a space and what looks like the start of a sentence, except after abbreviations,
 * initials and numbers like "3.5".
 */
export function splitSentences(text: string): Sentence[] {
  const sentences: Sentence[] = [];
  let block = 0;
  let lineStart = 0;
  while (lineStart <= text.length && sentences.length < MAX_SENTENCES) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    splitLine(text, lineStart, lineEnd, block, sentences);
    block++;
    lineStart = lineEnd + 1;
  }
  return sentences.slice(0, MAX_SENTENCES);
}

/**
 * A sentence end followed by a space and a sentence start; or, as the index reads text (search_text, migration 020),
 * a full stop with no space between a word and a capitalised word ("countries.Behavioural": blocks or sentences that
 * extraction or a data set joined). Identifiers such as `java.lang.String` or `Math.Max(` are not split. A run of
 * marks is only tried from its first one: from each of its others the pattern would scan the rest of the run again.
 */
const BOUNDARY =
  /(?<![.!?…])[.!?…]+["'”’)\]]*(?=\s+["'“‘([]?[\p{Lu}\p{N}])|(?<=[\p{Ll}\p{N}%)\]])\.(?=\p{Lu}\p{Ll}+(?:[\s,;:]|$))/gu;

function splitLine(text: string, from: number, to: number, block: number, out: Sentence[]): void {
  const line = text.slice(from, to);
  let start = 0;
  BOUNDARY.lastIndex = 0;
  for (let match = BOUNDARY.exec(line); match; match = BOUNDARY.exec(line)) {
    const end = match.index + match[0].length;
    if (isFalseBoundary(line, match.index, match[0])) continue;
    push(text, from + start, from + end, block, out);
    start = end;
  }
  push(text, from + start, to, block, out);
}

function isFalseBoundary(line: string, at: number, mark: string): boolean {
  if (!mark.startsWith('.') || mark.length > 1) return false;
  // eslint-disable-next-line regexp/no-super-linear-move -- on the 20 characters before the mark, never more
  const word = /([\p{L}\p{N}.]+)$/u.exec(line.slice(Math.max(0, at - 20), at))?.[1] ?? '';
  if (word === '') return false;
  const glued = !/\s/.test(line[at + 1] ?? ' ');
  if (glued && word.includes('.')) return true;
  const lower = word.toLowerCase();
  if (ABBREVIATIONS.has(lower)) return true;
  // Initials ("J. Smith", "U.S.") and dotted abbreviations.
  if (/^\p{Lu}$/u.test(word) || /^(\p{L}\.)+\p{L}$/u.test(word)) return true;
  return false;
}

function push(text: string, start: number, end: number, block: number, out: Sentence[]): void {
  let s = start;
  let e = end;
  while (s < e && /\s/.test(text[s]!)) s++;
  while (e > s && /\s/.test(text[e - 1]!)) e--;
  if (e > s) out.push({ text: text.slice(s, e), start: s, end: e, block, index: out.length });
}

/**
 * A heading or a label rather than prose: a whole line of at most six words without closing punctuation. Snippets
 * and passages leave these out ("Course", "Travel", "GIN indexes" would otherwise run into the next sentence).
 */
export function isHeadingLike(sentence: Sentence, source: string): boolean {
  const wholeLine =
    (sentence.start === 0 || source[sentence.start - 1] === '\n') &&
    (sentence.end === source.length || source[sentence.end] === '\n');
  return wholeLine && !/[.!?…:;"'”’)\]]$/.test(sentence.text) && sentence.text.split(/\s+/).length <= 6;
}

/** The prose sentences of a text (all of them when it has nothing but headings and labels). */
export function proseSentences(text: string): Sentence[] {
  const all = splitSentences(text);
  const prose = all.filter((sentence) => !isHeadingLike(sentence, text));
  return prose.length > 0 ? prose : all;
}
