import type { BraveImageResult, BraveNewsResult, BraveWebResult } from '../../search/upstream/brave.js';
import { canonicalUrl } from '../../search/upstream/upstream-text.js';
import type { ImageResult } from '../dto/images-results.dto.js';
import type { NewsResult } from '../dto/news-jobs-scholar-results.dto.js';
import type { WebResult } from '../dto/web-results.dto.js';

/** Brave Search API answers as vertical records. */

const PROVIDER = 'brave' as const;

export function braveWebResults(results: readonly BraveWebResult[]): WebResult[] {
  return results.flatMap((result): WebResult[] => {
    const url = canonicalUrl(result.url);
    if (!url) return [];
    return [
      {
        title: result.title || url,
        url,
        snippet: result.description || null,
        published_date: result.publishedDate?.toISOString() ?? null,
        provider: PROVIDER,
      },
    ];
  });
}

export function braveNewsResults(results: readonly BraveNewsResult[]): NewsResult[] {
  return results.flatMap((result): NewsResult[] => {
    const url = canonicalUrl(result.url);
    if (!url) return [];
    return [
      {
        title: result.title || url,
        url,
        source: result.source,
        published_date: result.publishedDate?.toISOString() ?? null,
        snippet: result.description || null,
        image: canonicalUrl(result.thumbnail),
        provider: PROVIDER,
      },
    ];
  });
}

export function braveImageResults(results: readonly BraveImageResult[]): ImageResult[] {
  return results.flatMap((result): ImageResult[] => {
    const url = canonicalUrl(result.imageUrl);
    if (!url) return [];
    return [
      {
        url,
        thumbnail: canonicalUrl(result.thumbnail),
        title: result.title || null,
        source_url: canonicalUrl(result.pageUrl),
        width: result.width,
        height: result.height,
        provider: PROVIDER,
      },
    ];
  });
}
