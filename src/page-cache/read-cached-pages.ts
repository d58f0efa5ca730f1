import type { Database } from '../database/database.js';
import type { CachedPage } from './cached-page.js';

interface Row {
  url: string;
  title: string | null;
  content: string;
  published_date: Date | null;
  favicon: string | null;
  images: unknown;
  fetched_at: Date;
}

/** One lookup by the primary key (documents.url) for every URL at once. */
const SQL = `
SELECT url, title, content, published_date, favicon, images, fetched_at
FROM documents WHERE url = ANY($1::text[])`;

/** The index's copies of the pages at these canonical URLs, by URL (absent: not indexed). */
export async function readCachedPages(db: Database, urls: readonly string[]): Promise<Map<string, CachedPage>> {
  if (urls.length === 0) return new Map();
  const { rows } = await db.query<Row>(SQL, [urls]);
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
      },
    ]),
  );
}
