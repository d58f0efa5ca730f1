import type { Database } from '../database/database.js';
import type { PageLinkText } from '../documents/extracted-page.js';
import type { CachedPage } from './cached-page.js';

interface Row {
  url: string;
  title: string | null;
  content: string;
  published_date: Date | null;
  favicon: string | null;
  images: unknown;
  fetched_at: Date;
  links?: unknown;
}

/** One lookup by the primary key (documents.url) for every URL at once. */
const SQL = `
SELECT url, title, content, published_date, favicon, images, fetched_at
FROM documents WHERE url = ANY($1::text[])`;
/** The same, with the pages' links (only crawl needs them: they may be thousands a page). */
const SQL_WITH_LINKS = `
SELECT url, title, content, published_date, favicon, images, fetched_at, links
FROM documents WHERE url = ANY($1::text[])`;

/** The index's copies of the pages at these canonical URLs, by URL (absent: not indexed). */
export async function readCachedPages(
  db: Database,
  urls: readonly string[],
  withLinks = false,
): Promise<Map<string, CachedPage>> {
  if (urls.length === 0) return new Map();
  const { rows } = await db.query<Row>(withLinks ? SQL_WITH_LINKS : SQL, [urls]);
  return new Map(
    rows.map((row) => [
      row.url,
      {
        url: row.url,
        title: row.title,
        markdown: row.content,
        publishedDate: row.published_date,
        favicon: row.favicon,
        images: Array.isArray(row.images) ? row.images.filter((i): i is string => typeof i === 'string') : [],
        fetchedAt: row.fetched_at,
        links: linksOf(row.links),
      },
    ]),
  );
}

function linksOf(value: unknown): PageLinkText[] | null {
  if (!Array.isArray(value)) return null;
  return value.flatMap((link: unknown) => {
    const { url, text } = (link ?? {}) as { url?: unknown; text?: unknown };
    return typeof url === 'string' ? [{ url, text: typeof text === 'string' ? text : '' }] : [];
  });
}
