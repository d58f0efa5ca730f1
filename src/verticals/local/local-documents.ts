import { Inject, Injectable } from '@nestjs/common';
import { Database } from '../../database/database.js';
import { INDEX_DATABASE } from '../../database/index-database.js';
import type { JsonRecord } from '../../search/upstream/json-shape.js';

/** A page of the local index that may hold items of a vertical. */
export interface LocalDocument {
  readonly url: string;
  readonly domain: string;
  readonly title: string | null;
  /** The start of the page's text. */
  readonly snippet: string;
  readonly publishedDate: Date | null;
  readonly images: string[];
  readonly structuredData: JsonRecord[];
  /** Full-text rank of the page for the query (higher is better). */
  readonly rank: number;
}

export interface DocumentFilter {
  /**
   * A regular expression over the page's structured data as JSON text, telling which pages may hold the vertical's
   * items (`"(Product|Offer)"`); null: any page.
   */
  readonly structuredData: string | null;
  /** Pages with images pass too (the images vertical). */
  readonly withImages?: boolean;
  /** Pages published before this are left out (pages without a date stay in; their items are checked later). */
  readonly publishedFrom?: Date | null;
  /** A regular expression the page's host must match (amazon: `(^|\.)amazon\.`). */
  readonly domain?: string | null;
  readonly limit: number;
}

export type Interval = 'hour' | 'day' | 'week' | 'month';

/** The text of a page's structured data: every string value, as one text (what a query about an item matches). */
const STRUCTURED_TEXT = `left(coalesce((SELECT string_agg(s #>> '{}', ' ')
                                 FROM jsonb_path_query(d.structured_data, 'strict $.**') s
                                 WHERE jsonb_typeof(s) = 'string'), ''), 20000)`;

/**
 * The local documents index, as the verticals read it: a plain PostgreSQL full-text match (English stemming; title,
 * structured-data text and page text weighted A, B, D) of pages whose structured data may hold the vertical's items.
 * Any query term may match; pages matching more terms, and in their titles, rank first. Ranking quality is search's
 * business (POST /search); verticals need the pages that carry a kind of item and mention the query.
 */
@Injectable()
export class LocalDocuments {
  constructor(@Inject(INDEX_DATABASE) private readonly db: Database) {}

  async find(query: string, filter: DocumentFilter): Promise<LocalDocument[]> {
    const { rows } = await this.db.query<{
      url: string;
      domain: string;
      title: string | null;
      snippet: string;
      published_date: Date | null;
      images: unknown;
      structured_data: unknown;
      rank: number;
    }>(
      `SELECT d.url, d.domain, d.title, left(d.content, 600) AS snippet, d.published_date, d.images,
              d.structured_data, ts_rank(v.tsv, q.tsq) AS rank
       FROM documents d
       CROSS JOIN (SELECT replace(plainto_tsquery('english', $1)::text, '&', '|')::tsquery AS tsq) q
       CROSS JOIN LATERAL (
         SELECT setweight(to_tsvector('english', coalesce(d.title, '')), 'A')
             || setweight(to_tsvector('english', ${STRUCTURED_TEXT}), 'B')
             || setweight(to_tsvector('english', left(d.content, 20000)), 'D') AS tsv
       ) v
       WHERE ($2::text IS NULL OR d.structured_data::text ~ $2 OR ($3::boolean AND jsonb_array_length(d.images) > 0))
         AND ($4::timestamptz IS NULL OR d.published_date IS NULL OR d.published_date >= $4)
         AND ($5::text IS NULL OR d.domain ~* $5)
         AND (numnode(q.tsq) = 0 OR v.tsv @@ q.tsq)
       ORDER BY rank DESC, d.published_date DESC NULLS LAST, d.url
       LIMIT $6`,
      [
        query,
        filter.structuredData,
        filter.withImages ?? false,
        filter.publishedFrom ?? null,
        filter.domain ?? null,
        filter.limit,
      ],
    );
    return rows.map((row) => ({
      url: row.url,
      domain: row.domain,
      title: row.title,
      snippet: row.snippet,
      publishedDate: row.published_date,
      images: Array.isArray(row.images) ? row.images.filter((i): i is string => typeof i === 'string') : [],
      structuredData: Array.isArray(row.structured_data)
        ? row.structured_data.filter((i): i is JsonRecord => typeof i === 'object' && i !== null && !Array.isArray(i))
        : [],
      rank: Number(row.rank),
    }));
  }

  /**
   * How many dated pages matching every term of the query were published in each period of [from, to): keys are the
   * periods' starts (UTC), `YYYY-MM-DDTHH:MM:SS`.
   */
  async countsOverTime(query: string, from: Date, to: Date, interval: Interval): Promise<Map<string, number>> {
    const { rows } = await this.db.query<{ bucket: string; n: number }>(
      `SELECT to_char(date_trunc($4, d.published_date AT TIME ZONE 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS') AS bucket,
              count(*)::int AS n
       FROM documents d
       CROSS JOIN (SELECT plainto_tsquery('english', $1) AS tsq) q
       WHERE d.published_date >= $2 AND d.published_date < $3
         AND (numnode(q.tsq) = 0
              OR (to_tsvector('english', coalesce(d.title, '')) || to_tsvector('english', left(d.content, 20000)))
                 @@ q.tsq)
       GROUP BY 1`,
      [query, from, to, interval],
    );
    return new Map(rows.map((row) => [row.bucket, Number(row.n)]));
  }
}
