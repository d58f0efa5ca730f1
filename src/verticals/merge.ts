import { normalizeUrl } from '../documents/normalize-url.js';

/** Merging the records of several providers of one vertical. */

const STOP_WORDS = new Set(
  'a an and are as at be by for from in is it of on or the to with near me best buy cheap new vs'.split(' '),
);

/** The query's words worth matching an item against (lower case, two letters or more, no stop words). */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [];
  return [...new Set(words.filter((word) => !STOP_WORDS.has(word)))];
}

/** Whether the text mentions one of the terms (a term of five letters or more by its stem: `kettles` ~ `kettle`). */
export function mentionsAny(text: string, terms: readonly string[]): boolean {
  const haystack = text.toLowerCase();
  return terms.some((term) => haystack.includes(term.length >= 5 ? term.slice(0, term.length - 2) : term));
}

/** The URL spelling records are de-duplicated on (normalized, and without a trailing slash or `www.`). */
export function urlKey(url: string | null | undefined): string | null {
  if (!url) return null;
  const normalized = normalizeUrl(url) ?? url;
  return normalized
    .replace(/^(https?:\/\/)www\./i, '$1')
    .replace(/\/(?=$|\?)/, '')
    .toLowerCase();
}

/** The merge key of most verticals: the record's URL. */
export const byUrl = (item: { url: string | null }) => urlKey(item.url);

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}

/** `first` with its empty fields (null, '', []) filled from `other`. */
export function fillFrom<T extends object>(first: T, other: T): T {
  const merged = { ...first } as Record<string, unknown>;
  for (const [key, value] of Object.entries(other)) if (isEmpty(merged[key]) && !isEmpty(value)) merged[key] = value;
  return merged as T;
}

/**
 * The providers' lists merged: taken in turns (the first record of each provider, then the second of each, ...) so
 * every provider is represented, records with a key already seen folded into the first one (its empty fields filled),
 * cut at `max`. A record without a key is never folded.
 */
export function mergeResults<T extends object>(
  lists: readonly (readonly T[])[],
  keyOf: (item: T) => string | null,
  max: number,
): T[] {
  const merged: T[] = [];
  const byKey = new Map<string, number>();
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let i = 0; i < longest; i++) {
    for (const list of lists) {
      const item = list[i];
      if (item === undefined) continue;
      const key = keyOf(item);
      const seen = key === null ? undefined : byKey.get(key);
      if (seen !== undefined) {
        merged[seen] = fillFrom(merged[seen]!, item);
        continue;
      }
      if (key !== null) byKey.set(key, merged.length);
      merged.push(item);
    }
  }
  return merged.slice(0, max);
}
