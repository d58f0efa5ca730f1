import type { ExtractedPage } from '../extract/content-extractor.port.js';
import type { CachedPage } from '../page-cache/cached-page.js';
import { markdownHeadings } from './extracting-visitor.js';
import type { PageVisit } from './frontier/frontier.js';

/** What a crawl result is made of: a page extracted now, or the page cache's copy of one. */
export type CrawledPage = Pick<ExtractedPage, 'url' | 'rawContent' | 'images' | 'favicon'>;

/** The page cache's copy of a page as a map visit: its links followed (a map's results are URLs). */
export function cachedLinkVisit(page: CachedPage): PageVisit<null> {
  return { url: page.url, links: page.links ?? [], title: page.title, fromCache: true, payload: null };
}

/** The page cache's copy of a page as a crawl visit, at its canonical URL: its links followed, its content the result. */
export function cachedVisit(page: CachedPage): PageVisit<CrawledPage> {
  const url = page.url;
  return {
    url,
    links: page.links ?? [],
    title: page.title,
    summary: markdownHeadings(page.markdown),
    content: page.markdown,
    fromCache: true,
    payload: { url, rawContent: page.markdown, images: page.images, favicon: page.favicon },
  };
}
