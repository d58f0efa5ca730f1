import type { Logger } from '@nestjs/common';
import type { ExtractedPage } from '../extract/content-extractor.port.js';
import { DocumentIndexWriter } from '../documents/document-index.writer.js';

/** Pages gathered before a write starts while the crawl runs (the rest is written when it ends). */
const MIN_BATCH = 25;
/** Most pages in one call to the writer. */
const MAX_BATCH = 500;

/**
 * A crawl's pages on their way to the local search index, written while the crawl goes on rather than all at its
 * end: one write at a time, each taking every page gathered meanwhile (so batches grow when writes are slow), and
 * the last pages written by `drain()` before the crawl answers. The index is a by-product: a write that fails is
 * logged, and the crawl is served all the same.
 */
export class IndexFeed {
  private pending: ExtractedPage[] = [];
  private writing: Promise<void> | null = null;
  private written = 0;

  constructor(
    private readonly writer: DocumentIndexWriter,
    private readonly logger: Logger,
  ) {}

  push(page: ExtractedPage): void {
    this.pending.push(page);
    if (!this.writing && this.pending.length >= MIN_BATCH) this.writing = this.writeAll(MIN_BATCH);
  }

  /** Writes what is left; resolves with the number of rows written in all. */
  async drain(): Promise<number> {
    while (this.writing) await this.writing;
    if (this.pending.length > 0) await (this.writing = this.writeAll(1));
    return this.written;
  }

  /** Writes batches while at least `least` pages wait. */
  private async writeAll(least: number): Promise<void> {
    try {
      while (this.pending.length >= least) {
        const batch = this.pending.splice(0, MAX_BATCH);
        const fetchedAt = new Date();
        const documents = batch.flatMap((page) => DocumentIndexWriter.fromPage(page, fetchedAt) ?? []);
        try {
          this.written += await this.writer.upsert(documents);
        } catch (error) {
          this.logger.warn(`indexing ${documents.length} crawled pages failed: ${(error as Error).message}`);
        }
      }
    } finally {
      this.writing = null;
    }
  }
}
