import { Inject, Injectable } from '@nestjs/common';
import { Gauge, type Registry } from 'prom-client';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port.js';
import { ReadModelProgress } from '../event-store/read-model-progress.port.js';
import { METRICS_REGISTRY } from './metrics.js';
import { projectionStatus } from './projection-status.js';
import { withTimeout } from './with-timeout.js';

const COLLECT_TIMEOUT_MS = 2000;

/**
 * projection_lag_seconds: age of the oldest event the read models do not include yet, 0 when they are up to date
 * (so an idle, caught-up projector reads 0). Computed at scrape time from the shared checkpoint, so every node
 * reports it, leader or not. NaN when it cannot be computed (database or store unreachable).
 */
@Injectable()
export class ProjectionMetrics {
  readonly lag: Gauge;

  constructor(
    @Inject(METRICS_REGISTRY) registry: Registry,
    runner: ReadModelProgress,
    @Inject(EVENT_STORE) store: EventStore,
  ) {
    this.lag = new Gauge({
      name: 'projection_lag_seconds',
      help: 'Age of the oldest event not yet applied to the read models; 0 when they are up to date.',
      registers: [registry],
      async collect() {
        try {
          const status = await withTimeout(projectionStatus(runner, store), COLLECT_TIMEOUT_MS);
          this.set(status.lagMs / 1000);
        } catch (_error) {
          this.set(Number.NaN);
        }
      },
    });
  }
}
