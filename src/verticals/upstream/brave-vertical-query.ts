import { FRESHNESS } from '../../search/upstream/brave.js';
import type { VerticalRequest } from '../vertical-request.js';

/** The query parameters every Brave endpoint takes for a vertical request. */
export function braveQuery(request: VerticalRequest) {
  return {
    q: request.query,
    count: request.maxResults,
    freshness: request.timeRange ? FRESHNESS[request.timeRange] : null,
    country: request.country,
    searchLang: request.language,
  };
}
