/**
 * Reading one page of an upstream hit for POST /search. The port is where a cache of read pages goes (a reader that
 * answers from the local index when its copy is fresh enough, and reads through otherwise).
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
}

export const PAGE_READER = Symbol('PAGE_READER');
