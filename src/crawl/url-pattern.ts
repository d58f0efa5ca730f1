import { RE2JS } from 're2js';

/**
 * The regular expressions of `select_paths`, `exclude_paths`, `select_domains` and `exclude_domains`. Callers write
 * them (often in Python's dialect, as Tavily's documentation does), and a pattern runs against every discovered URL,
 * so they are compiled by RE2JS: linear-time matching, no catastrophic backtracking whatever the pattern, and RE2
 * syntax (`(?i)`, `(?P<name>…)`; no look-around or back-references). A pattern matches when it is found anywhere in
 * the subject (`/docs/` matches `/en/docs/intro`); anchor it with `^`/`$` to match whole paths or hosts.
 */
export const MAX_PATTERNS_PER_FIELD = 50;
export const MAX_PATTERN_LENGTH = 200;

export interface UrlPattern {
  readonly source: string;
  test(subject: string): boolean;
}

/** Compiles one pattern; throws an Error whose message says what is wrong with it. */
export function compilePattern(source: string, options: { caseInsensitive?: boolean } = {}): UrlPattern {
  if (source.length > MAX_PATTERN_LENGTH) throw new Error(`longer than ${MAX_PATTERN_LENGTH} characters`);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source, options.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    throw new Error((error as Error).message || 'not a valid regular expression');
  }
  return { source, test: (subject) => compiled.test(subject) };
}

/** Why a list of patterns is not acceptable, or null when it is. */
export function patternListProblem(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) return 'must be an array of regular expressions';
  if (value.length > MAX_PATTERNS_PER_FIELD) return `may hold at most ${MAX_PATTERNS_PER_FIELD} patterns`;
  for (const pattern of value) {
    if (typeof pattern !== 'string') return 'must be an array of regular expressions';
    try {
      compilePattern(pattern);
    } catch (error) {
      return `has an invalid regular expression ${JSON.stringify(pattern.slice(0, 80))}: ${(error as Error).message}`;
    }
  }
  return null;
}
