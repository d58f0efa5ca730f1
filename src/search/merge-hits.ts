import type { SearchHit } from './providers/search-provider.port.js';

/** Two providers' hits of one URL as one: the better-scored one, with the fields it lacks taken from the other. */
export function mergeHits(a: SearchHit, b: SearchHit): SearchHit {
  const [best, other] = b.score > a.score ? [b, a] : [a, b];
  return {
    ...best,
    content: best.content || other.content,
    rawContent: best.rawContent ?? other.rawContent,
    publishedDate: best.publishedDate ?? other.publishedDate,
    favicon: best.favicon ?? other.favicon,
    images: best.images.length > 0 ? best.images : other.images,
  };
}
