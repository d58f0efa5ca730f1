/** What an extraction gives for one page: what the page cache keeps and the document index stores. */

/** A link of a page: its absolute URL (no fragment) and its anchor texts (joined by ` | `; may be empty). */
export interface PageLinkText {
  readonly url: string;
  readonly text: string;
}

export interface ExtractedPage {
  /** The final URL of the page (after redirects). */
  readonly url: string;
  readonly title: string | null;
  readonly rawContent: string;
  /** Absolute URLs of the page's main images. */
  readonly images: readonly string[];
  readonly favicon: string | null;
  readonly publishedDate: string | null;
  readonly language: string | null;
  /** schema.org JSON-LD / microdata items, OpenGraph and citation meta tags, as found. */
  readonly structuredData: readonly Record<string, unknown>[];
  /** Outgoing links of the page, for map and crawl. */
  readonly links: readonly PageLinkText[];
  /** The page asks robots not to follow its links (`<meta name="robots" content="nofollow">`, or `none`). */
  readonly noFollow?: boolean;
  readonly contentType: string;
}
