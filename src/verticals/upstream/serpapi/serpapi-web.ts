import { type JsonRecord, recordsAt, str } from '../../../search/upstream/json-shape.js';
import { canonicalUrl, parseUpstreamDate, plainText } from '../../../search/upstream/upstream-text.js';
import type { WebResult } from '../../dto/web-results.dto.js';
import { PROVIDER } from './serp-record.js';

/** engine=bing | duckduckgo: `organic_results`. */
export function serpWeb(root: JsonRecord): WebResult[] {
  return recordsAt(root, 'organic_results', 'the answer').flatMap((entry): WebResult[] => {
    const url = canonicalUrl(str(entry.link));
    if (!url) return [];
    return [
      {
        title: plainText(str(entry.title)) || url,
        url,
        snippet: plainText(str(entry.snippet)) || null,
        published_date: parseUpstreamDate(str(entry.date))?.toISOString() ?? null,
        provider: PROVIDER,
      },
    ];
  });
}
