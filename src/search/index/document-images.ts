import type { HitImage } from '../providers/search-provider.port.js';

const MAX_IMAGES_PER_DOCUMENT = 5;

/**
 * The images of an indexed document with a description each: the page's own words for the image when it has them
 * (og:image:alt; a schema.org ImageObject's caption, description or name), else words from the file name and the
 * page title. `images` is the documents.images column: URL strings (or `{url, alt|description}` objects).
 */
export function documentImages(images: unknown, structuredData: unknown, title: string | null): HitImage[] {
  const described = describedImages(structuredData);
  const result: HitImage[] = [];
  const seen = new Set<string>();
  for (const entry of Array.isArray(images) ? images : []) {
    const { url, description } = imageEntry(entry);
    if (!url || seen.has(url) || !/^https?:\/\//i.test(url)) continue;
    seen.add(url);
    result.push({ url, description: description ?? described.get(url) ?? fallbackDescription(url, title) });
    if (result.length >= MAX_IMAGES_PER_DOCUMENT) break;
  }
  return result;
}

function imageEntry(entry: unknown): { url: string | null; description: string | null } {
  if (typeof entry === 'string') return { url: entry, description: null };
  if (entry && typeof entry === 'object') {
    const record = entry as Record<string, unknown>;
    const url = text(record.url) ?? text(record.src);
    return { url, description: text(record.description) ?? text(record.alt) };
  }
  return { url: null, description: null };
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value.trim() : null);
const first = (value: unknown): string | null => (Array.isArray(value) ? text(value[0]) : text(value));

/** URL → description, from OpenGraph and schema.org items. */
function describedImages(structuredData: unknown): Map<string, string> {
  const map = new Map<string, string>();
  const visit = (value: unknown, depth: number) => {
    if (depth > 6 || !value || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const entry of value) visit(entry, depth + 1);
      return;
    }
    const item = value as Record<string, unknown>;
    if (item['@source'] === 'opengraph') {
      const url = first(item['og:image']) ?? first(item['og:image:url']) ?? first(item['og:image:secure_url']);
      const alt = first(item['og:image:alt']);
      if (url && alt && !map.has(url)) map.set(url, alt);
    }
    const url = first(item.contentUrl) ?? (isImageObject(item) ? first(item.url) : null);
    const description = first(item.caption) ?? first(item.description) ?? first(item.name);
    if (url && description && !map.has(url)) map.set(url, description);
    for (const [key, child] of Object.entries(item)) if (key !== '@context') visit(child, depth + 1);
  };
  visit(structuredData, 0);
  return map;
}

function isImageObject(item: Record<string, unknown>): boolean {
  const type = item['@type'];
  return type === 'ImageObject' || (Array.isArray(type) && type.includes('ImageObject'));
}

/** "Harbour crane at dusk — Harbour reopens after storm" from `.../harbour-crane-at-dusk.jpg` and the page title. */
function fallbackDescription(url: string, title: string | null): string {
  let words = '';
  try {
    const name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
    words = name
      .replace(/\.[a-z0-9]{2,5}$/i, '')
      .split(/[-_.+\s]+/)
      .filter((word) => /\p{L}{2,}/u.test(word) && !/^(img|image|dsc|photo|pic|screenshot)$/i.test(word))
      .filter((word) => !/^[0-9a-f]{6,}$/i.test(word))
      .join(' ');
  } catch {
    // not a parsable URL: the title alone
  }
  const lead = words ? words.charAt(0).toUpperCase() + words.slice(1) : '';
  if (lead && title) return `${lead} — ${title}`;
  return lead || (title ? `Image from ${title}` : 'Image');
}
