import { Inject, Injectable, Optional } from '@nestjs/common';
import { Counter, type Registry } from 'prom-client';
import { ExtractionPool } from '../extract/extraction-pool.js';
import { HostScheduler } from '../fetch/host-scheduler.js';
import { METRICS_REGISTRY } from '../observability/metrics.js';
import { DocumentIndexWriter } from '../documents/document-index.writer.js';

/**
 * Where a crawl's time goes, as running totals at /metrics: waiting for a host's turn (politeness), waiting for and
 * spending time on an extraction thread, and writing to the local index. Read twice, their differences over the
 * pages crawled show what limits a crawl (bench:crawl prints them per run).
 */
@Injectable()
export class CrawlPipelineMetrics {
  constructor(
    @Optional() @Inject(METRICS_REGISTRY) registry: Registry | null,
    scheduler: HostScheduler,
    writer: DocumentIndexWriter,
    @Optional() @Inject(ExtractionPool) pool: ExtractionPool | null,
  ) {
    if (!registry) return;
    const total = (name: string, help: string, read: () => number) =>
      new Counter({
        name,
        help,
        registers: [registry],
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    total(
      'fetch_host_requests_total',
      'Requests map and crawl sent under per-host politeness.',
      () => scheduler.stats.tasks,
    );
    total(
      'fetch_host_wait_seconds_total',
      "Time those requests waited for their host's turn (its slots and crawl-delay).",
      () => scheduler.stats.waitSeconds,
    );
    total('extraction_pages_total', 'HTML pages extracted on the extraction threads.', () => pool?.stats.pages ?? 0);
    total(
      'extraction_wait_seconds_total',
      'Time those pages waited for a turn on the extraction threads.',
      () => pool?.stats.waitSeconds ?? 0,
    );
    total(
      'extraction_seconds_total',
      'Time those pages spent on an extraction thread (wall time: it includes waiting for a core).',
      () => pool?.stats.workSeconds ?? 0,
    );
    total(
      'index_write_statements_total',
      'Statements writing pages to the local index.',
      () => writer.stats.statements,
    );
    total('index_write_documents_total', 'Pages written to the local index.', () => writer.stats.documents);
    total('index_write_seconds_total', 'Time spent in those statements.', () => writer.stats.seconds);
  }
}
