import type { ImageResult } from '../dto/images-results.dto.js';
import type { LocalDocument } from './local-documents.js';
import { hasType, metas, numberOf, text, urlOf } from './schema-org.js';
import { ogValue, pageOf, set } from './structured-page.js';

const IMAGE_TYPES = set('ImageObject', 'Photograph');

export function imagesOf(doc: LocalDocument): ImageResult[] {
  const { og, schema } = pageOf(doc);
  const images: ImageResult[] = [];
  const seen = new Set<string>();
  const add = (image: ImageResult) => {
    if (seen.has(image.url)) return;
    seen.add(image.url);
    images.push(image);
  };
  for (const { item, parent } of schema) {
    if (!hasType(item, IMAGE_TYPES)) continue;
    // Publishers' logos are not what an image search is after.
    if (parent && (parent.logo === item || (Array.isArray(parent.logo) && parent.logo.includes(item)))) continue;
    const url = urlOf(item.contentUrl ?? item.url, doc.url);
    if (!url) continue;
    add({
      url,
      thumbnail: urlOf(item.thumbnailUrl ?? item.thumbnail, doc.url),
      title: text(item.name ?? item.caption ?? item.headline ?? item.description) ?? doc.title,
      source_url: doc.url,
      width: numberOf(item.width),
      height: numberOf(item.height),
      provider: 'local',
    });
  }
  if (og) {
    metas(og, 'og:image').forEach((value, index) => {
      const url = urlOf(value, doc.url);
      if (!url) return;
      add({
        url,
        thumbnail: null,
        title: (index === 0 ? ogValue(og, 'og:image:alt') : null) ?? ogValue(og, 'og:title') ?? doc.title,
        source_url: doc.url,
        width: index === 0 ? numberOf(ogValue(og, 'og:image:width')) : null,
        height: index === 0 ? numberOf(ogValue(og, 'og:image:height')) : null,
        provider: 'local',
      });
    });
  }
  for (const image of doc.images) {
    const url = urlOf(image, doc.url);
    if (url) {
      add({
        url,
        thumbnail: null,
        title: doc.title,
        source_url: doc.url,
        width: null,
        height: null,
        provider: 'local',
      });
    }
  }
  return images;
}
