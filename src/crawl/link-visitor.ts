import type { Fetcher } from '../fetch/fetcher.port.js';
import type { PageVisitor } from './frontier/frontier.js';
import { outlineHtml } from './html-outline.js';
import { isDocumentUrl } from './url-kinds.js';

const MAX_PAGE_BYTES = 5 * 1024 * 1024;
const ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1';

/**
 * Map's page visit: fetch the page and read its links in one streaming pass (html-outline.ts), without the cost of
 * content extraction. Documents (PDF, office files) are listed without being downloaded: they have no links to
 * follow.
 */
export function linkVisitor(fetcher: Fetcher): PageVisitor<null> {
  return async (url, { signal, timeoutMs, politely }) => {
    if (isDocumentUrl(new URL(url))) return { url, links: [], payload: null };
    const resource = await politely(() =>
      fetcher.fetch(url, { signal, timeoutMs, maxBytes: MAX_PAGE_BYTES, accept: ACCEPT }),
    );
    if (resource.contentType !== 'text/html' && resource.contentType !== 'application/xhtml+xml') {
      return { url: resource.url, links: [], payload: null };
    }
    const outline = outlineHtml(resource.text(), resource.url);
    return {
      url: resource.url,
      links: outline.links,
      noFollow: outline.noFollow,
      title: outline.title,
      summary: outline.summary,
      payload: null,
    };
  };
}
