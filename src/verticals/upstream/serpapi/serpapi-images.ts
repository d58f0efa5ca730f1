import { type JsonRecord, num, recordsAt, str } from '../../../search/upstream/json-shape.js';
import { canonicalUrl, plainText } from '../../../search/upstream/upstream-text.js';
import type { ImageResult } from '../../dto/images-results.dto.js';
import { PROVIDER } from './serp-record.js';

/** engine=google_images: `images_results` (`original` is the image, `link` the page). */
export function serpImages(root: JsonRecord): ImageResult[] {
  return recordsAt(root, 'images_results', 'the answer').flatMap((entry): ImageResult[] => {
    const url = canonicalUrl(str(entry.original));
    if (!url) return [];
    return [
      {
        url,
        thumbnail: canonicalUrl(str(entry.thumbnail)),
        title: plainText(str(entry.title)) || null,
        source_url: canonicalUrl(str(entry.link)),
        width: num(entry.original_width),
        height: num(entry.original_height),
        provider: PROVIDER,
      },
    ];
  });
}
