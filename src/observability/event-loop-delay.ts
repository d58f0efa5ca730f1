import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Histogram, type Registry } from 'prom-client';
import { METRICS_REGISTRY } from './metrics.js';

/** How often the probe timer is due. */
const PROBE_EVERY_MS = 500;

/**
 * `event_loop_delay_seconds`: how late a timer due every 500 ms actually ran, as a Prometheus histogram. prom-client's
 * `nodejs_eventloop_lag_*` gauges (perf_hooks.monitorEventLoopDelay) give percentiles since the previous scrape only;
 * a histogram keeps every delay in its buckets across scrapes, so a block that ended between two scrapes, or that a
 * scrape could not see because the loop it waits for was blocked, shows up as one late observation (a 40 s block
 * lands in the 60 s bucket, with `rate(..._count)` dropping meanwhile).
 */
@Injectable()
export class EventLoopDelay implements OnModuleDestroy {
  private readonly histogram: Histogram;
  private readonly timer: NodeJS.Timeout;
  private dueAt = performance.now() + PROBE_EVERY_MS;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    this.histogram = new Histogram({
      name: 'event_loop_delay_seconds',
      help: `How late the event loop ran a timer due every ${PROBE_EVERY_MS} ms.`,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    });
    this.timer = setInterval(() => this.probe(), PROBE_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  private probe(): void {
    const now = performance.now();
    this.histogram.observe(Math.max(0, now - this.dueAt) / 1000);
    this.dueAt = now + PROBE_EVERY_MS;
  }
}
