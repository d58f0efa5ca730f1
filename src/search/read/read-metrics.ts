import { Inject, Injectable } from '@nestjs/common';
import { Counter, Histogram, type Registry } from 'prom-client';
import { METRICS_REGISTRY } from '../../observability/metrics.js';
import type { SearchDepth } from './read-plan.js';

export type ReadOutcome = 'read' | 'failed' | 'late';
/** How a search's reading ended: every page settled, a page read answered the query (EnoughRead), or the deadline. */
export type ReadingEnd = 'all' | 'enough' | 'deadline';

/** What POST /search's page reads do, per depth: how many pages were read, failed or missed the deadline. */
@Injectable()
export class ReadMetrics {
  private readonly pages: Counter<'depth' | 'outcome'>;
  private readonly duration: Histogram<'depth'>;
  private readonly readings: Counter<'depth' | 'ended'>;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    this.pages = new Counter({
      name: 'search_page_reads_total',
      help: 'Upstream hits read by POST /search, by depth and outcome (read in time, failed, late: past the deadline).',
      labelNames: ['depth', 'outcome'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'search_reading_duration_seconds',
      help: "Time a search spent reading its upstream hits' pages (bounded by the depth's deadline).",
      labelNames: ['depth'],
      buckets: [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1, 1.3, 1.6, 2],
      registers: [registry],
    });
    this.readings = new Counter({
      name: 'search_readings_total',
      help:
        'POST /search readings of upstream pages, by depth and how they ended: every page settled (all), a page read ' +
        'answered the query (enough), or the deadline.',
      labelNames: ['depth', 'ended'],
      registers: [registry],
    });
  }

  observe(depth: SearchDepth, counts: Readonly<Record<ReadOutcome, number>>, seconds: number, ended: ReadingEnd): void {
    for (const [outcome, count] of Object.entries(counts)) if (count > 0) this.pages.inc({ depth, outcome }, count);
    this.duration.observe({ depth }, seconds);
    this.readings.inc({ depth, ended });
  }
}
