import { absolutizeUrls, baseUrlOf } from './absolute-urls.js';
import { flattenCodeBlocks, withoutCodeSpans } from './code-blocks.js';
import { parseDocument } from './dom.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { htmlToText } from './html-to-text.js';
import { DEFAULT_TUNING, type ExtractionTuning } from './extraction-tuning.js';
import { type ExtractDepth, extractMainContent } from './main-content.js';
import {
  dateCandidates,
  ogImages,
  pageFavicon,
  pageImages,
  pageLanguage,
  pageLinks,
  pageNoFollow,
  pageTitle,
  publishedDate,
} from './page-metadata.js';
import { type StructuredItem, structuredDataOf } from './structured-data.js';
import type { PageLinkText } from '../content-extractor.port.js';

export interface HtmlExtraction {
  readonly title: string | null;
  /** The main content, as markdown or text. */
  readonly content: string;
  readonly images: string[];
  readonly favicon: string | null;
  readonly publishedDate: string | null;
  readonly language: string | null;
  readonly structuredData: StructuredItem[];
  readonly links: PageLinkText[];
  /** `<meta name="robots">` says nofollow (or none). */
  readonly noFollow: boolean;
  readonly source: 'readability' | 'fallback';
}

export interface HtmlOptions {
  readonly depth: ExtractDepth;
  readonly format: 'markdown' | 'text';
}

/**
 * Everything the API reports about one HTML (or XHTML) page, from its markup alone. The page is parsed once: what
 * the metadata needs is read first, then the main content is taken out of that same tree (a page whose content
 * is only found by the fallback is parsed a second time, since extraction has changed the first tree).
 */
export function extractHtml(
  html: string,
  pageUrl: string,
  options: HtmlOptions,
  tuning: ExtractionTuning = DEFAULT_TUNING,
): HtmlExtraction {
  const markup = withoutCodeSpans(html);
  const document = parseDocument(markup.html);
  const flattened = markup.removed + flattenCodeBlocks(document);
  const base = baseUrlOf(document, pageUrl);
  absolutizeUrls(document, base);
  const structuredData = structuredDataOf(document, base);
  const links = pageLinks(document, base, pageUrl);
  const noFollow = pageNoFollow(document);
  const title = pageTitle(document);
  const og = ogImages(document, base);
  const favicon = pageFavicon(document, base);
  const language = pageLanguage(document);
  const dates = dateCandidates(document, structuredData);
  const main = extractMainContent(
    document,
    options.depth,
    flattened,
    () => {
      const fresh = parseDocument(markup.html);
      flattenCodeBlocks(fresh);
      absolutizeUrls(fresh, base);
      return fresh;
    },
    tuning,
  );
  return {
    title: main.title ?? title,
    content: options.format === 'text' ? htmlToText(main.root) : htmlToMarkdown(main.root),
    images: pageImages(og, main.root, base),
    favicon,
    publishedDate: publishedDate(dates, main.publishedTime),
    language,
    structuredData,
    links,
    noFollow,
    source: main.source,
  };
}
