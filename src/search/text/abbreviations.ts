/**
 * Abbreviations a text defines, as "long form (SHORT)": "C-reactive protein (CRP)", "B-type natriuretic peptide
 * (BNP)". A page names its subject in full once and by its abbreviation afterwards, so the sentence that states a
 * finding ("Addition of CRP improved …") holds none of the query's words for it; read with its definitions, it does.
 * The long form is found as Schwartz and Hearst do ("A simple algorithm for identifying abbreviation definitions in
 * biomedical text", 2003): the short form's letters and digits matched right to left in the words before the
 * parenthesis, its first character at the start of a word.
 */
const DEFINITION = /\(([\p{Lu}\p{N}][\p{L}\p{N}-]{1,9})\)/gu;
const MAX_DEFINITIONS = 50;

/** Short form → long form, the first definition of each. */
export function definedAbbreviations(text: string): Map<string, string> {
  const defined = new Map<string, string>();
  for (const match of text.matchAll(DEFINITION)) {
    const short = match[1]!;
    if (defined.has(short) || !/\p{Lu}/u.test(short) || !/^[\p{L}\p{N}]/u.test(short)) continue;
    const before = text.slice(Math.max(0, match.index - 200), match.index).split('\n').pop()!;
    const words = before.trim().split(/\s+/).filter(Boolean);
    const span = Math.min(short.length + 5, short.length * 2);
    const long = longForm(short, words.slice(-span).join(' '));
    if (long && long.length > short.length && long.split(' ').length <= span) defined.set(short, long);
    if (defined.size >= MAX_DEFINITIONS) break;
  }
  return defined;
}

function longForm(short: string, candidate: string): string | null {
  const alphanumeric = /[\p{L}\p{N}]/u;
  let l = candidate.length - 1;
  for (let s = short.length - 1; s >= 0; s--) {
    const c = short[s]!.toLowerCase();
    if (!alphanumeric.test(c)) continue;
    while (
      (l >= 0 && candidate[l]!.toLowerCase() !== c) ||
      (s === 0 && l > 0 && alphanumeric.test(candidate[l - 1]!))
    ) {
      l--;
    }
    if (l < 0) return null;
    l--;
  }
  return candidate.slice(candidate.lastIndexOf(' ', l) + 1);
}

/** The 1-based word positions at which `short` occurs in `sentence` as a word of its own. */
export function abbreviationPositions(sentence: string, short: string): number[] {
  const positions: number[] = [];
  // A short form is letters, digits and hyphens (DEFINITION): nothing to escape ('\\-' is no escape in a 'u' pattern).
  for (const match of sentence.matchAll(new RegExp(`(?<![\\p{L}\\p{N}])${short}(?![\\p{L}\\p{N}])`, 'gu'))) {
    positions.push(sentence.slice(0, match.index).split(/\s+/).filter(Boolean).length + 1);
  }
  return positions;
}
