import { normalizeUrl } from '../documents/normalize-url.js';
import { COUNTRY_BOOST, isFromCountry } from './country.js';
import { mergeHits } from './merge-hits.js';
import type { ProviderHits } from './provider-lists.js';
import type { SearchHit } from './providers/search-provider.port.js';

/** The local index's provider name: its hits are the index's own, the others an engine's. */
export const LOCAL_PROVIDER = 'local';

/** A page of the merged lists: its hit, and the best rank it has in any list. */
export interface MergedHit {
  readonly hit: SearchHit;
  readonly rank: number;
}

/**
 * The providers' lists as one, each page once (by its normalized URL) with the best rank it has in any list, in that
 * order. Two hits of one page from the same side (engines, or the local index) become one (mergeHits). Across sides,
 * with `enginesFirst`, the engine's hit stands: a search that reads pages serves the index's copy as the page cache's,
 * by its rules (max_age, cache_fallback, the SSRF rules), rather than as it is; without, they become one too.
 */
export function mergeResultLists(lists: readonly ProviderHits[], options: { enginesFirst: boolean }): MergedHit[] {
  const byPage = new Map<string, MergedHit & { readonly upstream: boolean }>();
  for (const list of lists) {
    const upstream = list.provider !== LOCAL_PROVIDER;
    list.hits.forEach((hit, rank) => {
      const key = normalizeUrl(hit.url) ?? hit.url;
      const seen = byPage.get(key);
      if (!seen) byPage.set(key, { hit, rank, upstream });
      else if (seen.upstream === upstream || !options.enginesFirst) {
        byPage.set(key, { hit: mergeHits(seen.hit, hit), rank: Math.min(seen.rank, rank), upstream });
      } else {
        byPage.set(key, { hit: upstream ? hit : seen.hit, rank: Math.min(seen.rank, rank), upstream: true });
      }
    });
  }
  return [...byPage.values()].sort((a, b) => a.rank - b.rank).map(({ hit, rank }) => ({ hit, rank }));
}

/** `score` with the request's country preference: results from the country's own domain score higher (at most 1). */
export function countryBoosted(score: number, url: string, country: string | null | undefined): number {
  return country && isFromCountry(url, country) ? Math.min(1, score * COUNTRY_BOOST) : score;
}
