/**
 * Reading one page of an upstream hit for POST /search. The page cache is in front of it: ReadAndRank looks every hit
 * up in the local index at once (PageCache) and asks the reader only for the pages without a fresh copy; the reader
 * hands each page it reads to the cache.
 */
export interface ReadPage {
  /** The final URL, after redirects. */
  readonly url: string;
  readonly title: string | null;
  /** The main content as markdown. */
  readonly markdown: string;
  readonly publishedDate: Date | null;
  readonly favicon: string | null;
  readonly images: readonly string[];
}

export interface PageReader {
  /** Rejects on any failure, and once `signal` aborts (the page's deadline). */
  read(url: string, signal: AbortSignal): Promise<ReadPage>;
  /** Told of the pages that may be read soon (so that what precedes a read, robots.txt, can start at once). */
  prepare?(urls: readonly string[]): void;
}

export const PAGE_READER = Symbol('PAGE_READER');
