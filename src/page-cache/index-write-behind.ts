import { Logger } from '@nestjs/common';
import { DocumentIndexWriter, type IndexedDocument } from '../documents/document-index.writer.js';
import type { PageCacheMetrics } from './page-cache.metrics.js';
import { isUnavailableDependency } from '../http/unavailable-dependency.js';

/** Most documents in one call to the writer. */
const MAX_BATCH = 200;
/**
 * How long a write waits after the first page of a batch: the pages of one search arrive within its deadline, and the
 * request's own statements (its charge above all) go first, before a write that locks index rows for its triggers.
 */
const GATHER_MS = 100;
/** Documents waiting at most: past it (the database down or far behind), new ones are dropped and counted. */
const MAX_PENDING = 1000;
/** While the database does not answer (its pool exhausted, refused), the batch is tried again this long after. */
const RETRY_AFTER_MS = 1000;
/** Tries of a batch at most: past them (a long outage) its pages are counted failed, as before. */
const MAX_TRIES = 5;

/**
 * Read pages on their way to the local index, off the request's path: `push` only queues; one write runs at a time,
 * started GATHER_MS after the first page queued and taking every document gathered meanwhile (so batches grow when
 * writes are slow). A failed write is logged and counted, never thrown: the index is a by-product of reading.
 */
export class IndexWriteBehind {
  private readonly logger = new Logger('IndexWriteBehind');
  private pending: IndexedDocument[] = [];
  private writing: Promise<void> | null = null;

  constructor(
    private readonly writer: DocumentIndexWriter,
    private readonly metrics: PageCacheMetrics,
  ) {}

  push(document: IndexedDocument): void {
    if (this.pending.length >= MAX_PENDING) {
      this.metrics.wrote('dropped');
      return;
    }
    this.pending.push(document);
    this.writing ??= new Promise<void>((resolve) => setTimeout(resolve, GATHER_MS)).then(() => this.writeAll());
  }

  /** Resolves once every document queued so far has been written (or has failed). */
  async drain(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async writeAll(): Promise<void> {
    try {
      let tries = 0;
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, MAX_BATCH);
        try {
          const written = await this.writer.upsert(batch);
          this.metrics.wrote('written', written);
          // The writer keeps the last of two documents with one URL, and skips rows that fail on their own.
          this.metrics.wrote('failed', new Set(batch.map((doc) => doc.url)).size - written);
          tries = 0;
        } catch (error) {
          if (isUnavailableDependency(error) && ++tries < MAX_TRIES) {
            // Upserts: safe to try again. First in line, within MAX_PENDING; the newest pages go past it.
            this.pending = batch.concat(this.pending);
            const over = this.pending.length - MAX_PENDING;
            if (over > 0) {
              this.pending.length = MAX_PENDING;
              this.metrics.wrote('dropped', over);
            }
            await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS).unref());
            continue;
          }
          this.metrics.wrote('failed', batch.length);
          this.logger.warn(`indexing ${batch.length} read pages failed: ${(error as Error).message}`);
        }
      }
    } finally {
      this.writing = null;
    }
  }
}
