import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import { INDEX_DATABASE } from '../database/index-database.js';
import type { ExtractedPage, PageLinkText } from './extracted-page.js';
import { linkListShare } from './link-list-share.js';
import { normalizeUrl } from './normalize-url.js';

/** One row of the local search index (`documents`). */
export interface IndexedDocument {
  /** Canonical URL: normalized (see normalize-url.ts). */
  readonly url: string;
  readonly title: string | null;
  readonly content: string;
  readonly publishedDate: Date | null;
  readonly language: string | null;
  readonly favicon: string | null;
  readonly images: readonly string[];
  readonly structuredData: readonly Record<string, unknown>[];
  readonly fetchedAt: Date;
  /**
   * The page's links to follow (normalized, in page order; none when it says nofollow), which map and crawl follow
   * from a cached copy; absent: unknown.
   */
  readonly links?: readonly PageLinkText[];
}

/** Rows per INSERT: the statistics triggers run once per statement, so once per this many documents. */
const ROWS_PER_STATEMENT = 500;
/**
 * On one backend (embedded mode) a search that arrives during a write waits for the statement: statements are cut to
 * take about this long (by the time per character of content the last ones took), and each waits for a moment
 * without searches, at most SINGLE_BACKEND_MAX_WAIT_MS (the index must still grow under a steady search load).
 */
const SINGLE_BACKEND_STATEMENT_MS = 25;
const SINGLE_BACKEND_MAX_WAIT_MS = 200;
/**
 * While no search has run for SINGLE_BACKEND_IDLE_AFTER_MS, statements may take this long: batches of a crawl's pages
 * share their statement-level work (the terms' statistics, the postings), which costs PGlite a quarter less per page
 * at 16 pages a statement than at one. A search that comes meanwhile waits for at most this one statement.
 */
const SINGLE_BACKEND_IDLE_STATEMENT_MS = 250;
const SINGLE_BACKEND_IDLE_AFTER_MS = 2000;
/** The first guess of a statement's cost per character of content, before any was measured (ms). */
const INITIAL_MS_PER_CHAR = 0.03;

/**
 * One statement per batch whatever its size: the rows travel as one array per column (unnest), so the statement
 * text and its plan are the same for every batch, and the statement-level statistics triggers see the batch at once.
 */
const UPSERT_SQL = `
INSERT INTO documents (url, domain, title, content, published_date, language, favicon, images, structured_data,
                       fetched_at, content_hash, link_list_share, links)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[],
                     $8::jsonb[], $9::jsonb[], $10::timestamptz[], $11::text[], $12::real[], $13::jsonb[])
ON CONFLICT (url) DO UPDATE SET
  domain = EXCLUDED.domain, title = EXCLUDED.title, content = EXCLUDED.content,
  published_date = EXCLUDED.published_date, language = EXCLUDED.language, favicon = EXCLUDED.favicon,
  images = EXCLUDED.images, structured_data = EXCLUDED.structured_data, fetched_at = EXCLUDED.fetched_at,
  content_hash = EXCLUDED.content_hash, link_list_share = EXCLUDED.link_list_share, links = EXCLUDED.links`;

/**
 * Feeds the local search index: every page crawl extracts is upserted by its canonical URL (a later read of the same
 * page replaces the row). Exported for other producers of extracted pages.
 */
@Injectable()
export class DocumentIndexWriter {
  /** Embedded mode: a moving average of what a statement costs per character of content (ms). */
  private msPerChar = INITIAL_MS_PER_CHAR;
  private readonly totals = { statements: 0, documents: 0, seconds: 0 };

  constructor(@Inject(INDEX_DATABASE) private readonly db: Database) {}

  static fromPage(page: ExtractedPage, fetchedAt = new Date()): IndexedDocument | null {
    const url = normalizeUrl(page.url);
    if (!url) return null;
    const published = page.publishedDate ? new Date(page.publishedDate) : null;
    return {
      url,
      title: page.title,
      content: page.rawContent,
      publishedDate: published && !Number.isNaN(published.getTime()) ? published : null,
      language: page.language,
      favicon: page.favicon,
      images: page.images,
      structuredData: page.structuredData,
      fetchedAt,
      // A page that asks robots not to follow its links leaves none to follow from its copy.
      links: page.noFollow
        ? []
        : page.links.flatMap((link) => {
            const normalized = normalizeUrl(link.url);
            return normalized ? [{ url: normalized, text: link.text }] : [];
          }),
    };
  }

  /**
   * Upserts the documents (the last of two with one URL wins), a batch per statement; a batch that fails is retried
   * row by row so that one bad page costs only its own row. Returns how many rows were written.
   */
  async upsert(documents: readonly IndexedDocument[]): Promise<number> {
    const unique = [...new Map(documents.map((doc) => [doc.url, doc])).values()];
    let written = 0;
    for (let i = 0; i < unique.length;) {
      const batch = unique.slice(i, i + this.statementRows(unique, i));
      i += batch.length;
      try {
        written += await this.write(batch);
      } catch (error) {
        if (batch.length === 1) throw error;
        for (const doc of batch) written += await this.write([doc]).catch(() => 0);
      }
    }
    return written;
  }

  /** How many of the documents from `start` on the next statement takes. */
  private statementRows(documents: readonly IndexedDocument[], start: number): number {
    if (!this.db.priority.singleBackend) return ROWS_PER_STATEMENT;
    const statementMs = this.db.priority.quietFor(SINGLE_BACKEND_IDLE_AFTER_MS)
      ? SINGLE_BACKEND_IDLE_STATEMENT_MS
      : SINGLE_BACKEND_STATEMENT_MS;
    const budget = statementMs / this.msPerChar;
    let rows = 0;
    for (let chars = 0; start + rows < documents.length && rows < ROWS_PER_STATEMENT; rows++) {
      chars += documents[start + rows]!.content.length;
      if (rows > 0 && chars > budget) break;
    }
    return Math.max(1, rows);
  }

  private async write(batch: readonly IndexedDocument[]): Promise<number> {
    const columns: unknown[][] = Array.from({ length: 13 }, () => []);
    for (const doc of batch) {
      [
        doc.url,
        new URL(doc.url).hostname,
        doc.title === null ? null : clean(doc.title),
        clean(doc.content),
        doc.publishedDate,
        doc.language,
        doc.favicon,
        cleanJson(doc.images),
        cleanJson(doc.structuredData),
        doc.fetchedAt,
        contentHash(doc.content),
        linkListShare(doc.content),
        doc.links ? cleanJson(doc.links) : null,
      ].forEach((value, column) => columns[column]!.push(value));
    }
    if (!this.db.priority.singleBackend) {
      await this.timed(batch.length, () => this.db.query(UPSERT_SQL, columns));
      return batch.length;
    }
    await this.db.priority.background(async () => {
      const ms = await this.timed(batch.length, () => this.db.query(UPSERT_SQL, columns));
      const chars = batch.reduce((sum, doc) => sum + doc.content.length, 0);
      this.msPerChar = 0.7 * this.msPerChar + (0.3 * ms) / Math.max(chars, 1000);
    }, SINGLE_BACKEND_MAX_WAIT_MS);
    return batch.length;
  }

  /** Since the start: statements written, the documents in them, and their time (for metrics). */
  get stats(): { readonly statements: number; readonly documents: number; readonly seconds: number } {
    return { ...this.totals };
  }

  /** Runs a statement of `documents` rows, counts it, and returns its time in ms. */
  private async timed(documents: number, statement: () => Promise<unknown>): Promise<number> {
    const started = performance.now();
    await statement();
    const ms = performance.now() - started;
    this.totals.statements++;
    this.totals.documents += documents;
    this.totals.seconds += ms / 1000;
    return ms;
  }
}

/** PostgreSQL text and jsonb cannot hold NUL characters (PDF text sometimes has them). */
function clean(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '') : text;
}

function cleanJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'string' ? clean(item) : item));
}

export function contentHash(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}
