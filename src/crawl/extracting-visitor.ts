import {
  type ContentExtractor,
  ExtractError,
  type ExtractOptions,
  type ExtractedPage,
} from '../extract/content-extractor.port.js';
import type { Fetcher } from '../fetch/fetcher.port.js';
import type { PageVisitor } from './frontier/frontier.js';
import { linkVisitor } from './link-visitor.js';
import { normalizeUrl } from '../documents/normalize-url.js';
import { trimStartChars } from '../common/linear-text.js';

/**
 * Crawl's page visit: the page extracted (its content is the payload, its links are followed). A page with too little
 * text to extract (a list of links, say) still leads somewhere: its links are read, and it is followed but no result.
 */
export function extractingVisitor(
  extractor: ContentExtractor,
  fetcher: Fetcher,
  options: Omit<ExtractOptions, 'timeoutMs'>,
): PageVisitor<ExtractedPage | null> {
  const readLinks = linkVisitor(fetcher);
  return async (url, context) => {
    let page: ExtractedPage;
    try {
      page = await extractor.extract(url, {
        ...options,
        timeoutMs: context.timeoutMs,
        signal: context.signal,
        politely: context.politely,
      });
    } catch (error) {
      if (!context.followLinks || context.signal.aborted || !isContentFailure(error)) throw error;
      const links = await readLinks(url, context).catch(() => Promise.reject(error));
      return links && { ...links, linksOnly: true };
    }
    return {
      url: page.url,
      links: page.links.flatMap((link) => {
        const normalized = normalizeUrl(link.url);
        return normalized ? [{ url: normalized, text: link.text }] : [];
      }),
      noFollow: page.noFollow === true,
      title: page.title,
      summary: markdownHeadings(page.rawContent),
      content: page.rawContent,
      payload: page,
    };
  };
}

/**
 * An extraction that failed on the content (too little text, an unreadable document), not on the fetch (HTTP error,
 * refused address) or the clock: the page is there, and its links are worth a cheap second read.
 */
function isContentFailure(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return message.startsWith('Failed to extract content:') && !(error instanceof ExtractError && error.transient);
}

const MAX_SUMMARY = 4000;

/** The headings of markdown content (its `#` lines, without the marks), for relevance as map reads them from HTML. */
export function markdownHeadings(markdown: string): string | null {
  let summary = '';
  let inCode = false;
  for (const line of markdown.split('\n')) {
    // A `#` line inside fenced code is a comment, not a heading.
    if (line.startsWith('```') || line.startsWith('~~~')) inCode = !inCode;
    if (inCode || !line.startsWith('#')) continue;
    summary += ` ${trimStartChars(line, '#').trim()}`;
    if (summary.length >= MAX_SUMMARY) break;
  }
  return summary.trim() || null;
}
