import { absolutizeUrls, baseUrlOf } from './absolute-urls.js';
import { parseDocument } from './dom.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { htmlToText } from './html-to-text.js';
import { type ExtractDepth, extractMainContent } from './main-content.js';
import { pageFavicon, pageImages, pageLanguage, pageLinks, pageTitle, publishedDate } from './page-metadata.js';
import { type StructuredItem, structuredDataOf } from './structured-data.js';

export interface HtmlExtraction {
  readonly title: string | null;
  /** The main content, as markdown or text. */
  readonly content: string;
  readonly images: string[];
  readonly favicon: string | null;
  readonly publishedDate: string | null;
  readonly language: string | null;
  readonly structuredData: StructuredItem[];
  readonly links: string[];
  readonly source: 'readability' | 'fallback';
}

export interface HtmlOptions {
  readonly depth: ExtractDepth;
  readonly format: 'markdown' | 'text';
}

/** Everything the API reports about one HTML (or XHTML) page, from its markup alone. */
export function extractHtml(html: string, pageUrl: string, options: HtmlOptions): HtmlExtraction {
  const document = parseDocument(html);
  const base = baseUrlOf(document, pageUrl);
  absolutizeUrls(document, base);
  // Read before extraction: Readability works on a copy, but the metadata needs the whole page.
  const structuredData = structuredDataOf(document, base);
  const links = pageLinks(document, base, pageUrl);
  const main = extractMainContent(document, options.depth);
  return {
    title: pageTitle(document, main.title),
    content: options.format === 'text' ? htmlToText(main.root) : htmlToMarkdown(main.root),
    images: pageImages(document, main.root, base),
    favicon: pageFavicon(document, base, pageUrl),
    publishedDate: publishedDate(document, structuredData, main.publishedTime),
    language: pageLanguage(document),
    structuredData,
    links,
    source: main.source,
  };
}
