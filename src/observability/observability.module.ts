import { Global, Module } from '@nestjs/common';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { EventLoopDelay } from './event-loop-delay.js';
import { MetricsController } from './metrics.controller.js';
import { METRICS_REGISTRY, Metrics } from './metrics.js';
import { ProjectionMetrics } from './projection-metrics.js';

/**
 * Metrics: one registry per application instance (several instances in one test process do not clash), with
 * prom-client's default process metrics, the service's own metrics (event-loop delay included) and GET /metrics.
 */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [
    {
      provide: METRICS_REGISTRY,
      useFactory: () => {
        const registry = new Registry();
        collectDefaultMetrics({ register: registry });
        return registry;
      },
    },
    Metrics,
    ProjectionMetrics,
    EventLoopDelay,
  ],
  exports: [METRICS_REGISTRY, Metrics],
})
export class ObservabilityModule {}
