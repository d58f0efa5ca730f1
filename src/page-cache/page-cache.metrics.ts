import { Inject, Injectable } from '@nestjs/common';
import { Counter, type Registry } from 'prom-client';
import { METRICS_REGISTRY } from '../observability/metrics.js';

export type LookupOutcome = 'fresh' | 'stale' | 'miss' | 'error';
export type WriteOutcome = 'written' | 'failed' | 'dropped';

/** What the page cache does: lookups per URL by outcome, and the read pages written to the local index. */
@Injectable()
export class PageCacheMetrics {
  private readonly lookups: Counter<'outcome'>;
  private readonly writes: Counter<'outcome'>;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    this.lookups = new Counter({
      name: 'page_cache_lookups_total',
      help: 'URLs looked up in the local index before a read, by outcome (fresh: served from it; stale; miss; error).',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.writes = new Counter({
      name: 'page_cache_index_writes_total',
      help: 'Pages read by search and extract on their way to the local index, by outcome (written, failed, dropped).',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }

  looked(outcome: LookupOutcome, count = 1): void {
    if (count > 0) this.lookups.inc({ outcome }, count);
  }

  wrote(outcome: WriteOutcome, count = 1): void {
    if (count > 0) this.writes.inc({ outcome }, count);
  }
}
