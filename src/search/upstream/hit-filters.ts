import type { ProviderSearchRequest, SearchHit } from '../providers/search-provider.port.js';
import { domainMatcher } from '../index/domain-patterns.js';
import { hasPhrases, inWindow } from './upstream-text.js';

/** One plain included domain is also asked of the upstream as `site:` (engines honour it); filters apply anyway. */
export function withSiteFilter(query: string, includeDomains: readonly string[]): string {
  if (includeDomains.length !== 1) return query;
  const domain = includeDomains[0]!.trim().replace(/^https?:\/\//, '');
  return /^[a-z0-9.-]+$/i.test(domain) ? `${query} site:${domain}` : query;
}

/** What every upstream provider applies to its hits: domains, the time window, required phrases, the count. */
export function filterHits(hits: SearchHit[], request: ProviderSearchRequest): SearchHit[] {
  const include = domainMatcher(request.includeDomains);
  const exclude = domainMatcher(request.excludeDomains);
  return hits
    .filter((hit) => !include || include(hit.url))
    .filter((hit) => !exclude || !exclude(hit.url))
    .filter((hit) => inWindow(hit.publishedDate, request.from, request.to))
    .filter((hit) => hasPhrases(`${hit.title} ${hit.content}`, request.requiredPhrases))
    .slice(0, request.maxResults);
}
