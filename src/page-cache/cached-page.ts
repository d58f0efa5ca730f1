import type { PageLinkText } from '../documents/extracted-page.js';

/** The longest max_age a request may give (search, extract, map, crawl): a year, in seconds. */
export const MAX_AGE_LIMIT = 31_536_000;

/** A page as the local index holds it: what a fresh read would give, and when it was fetched. */
export interface CachedPage {
  /** The canonical URL the index keys it by. */
  readonly url: string;
  readonly title: string | null;
  /** The main content as markdown. */
  readonly markdown: string;
  readonly publishedDate: Date | null;
  readonly favicon: string | null;
  readonly images: readonly string[];
  readonly fetchedAt: Date;
  /** Its outgoing links (normalized, in page order) when they were asked for and are known; else null. */
  readonly links: readonly PageLinkText[] | null;
}

/** Whether a copy fetched at `fetchedAt` is young enough for `maxAgeSeconds` (0: no copy is). */
export function isFresh(page: CachedPage, maxAgeSeconds: number, now = Date.now()): boolean {
  return maxAgeSeconds > 0 && now - page.fetchedAt.getTime() <= maxAgeSeconds * 1000;
}
