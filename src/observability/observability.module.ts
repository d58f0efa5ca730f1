import { type DynamicModule, Global, Module } from '@nestjs/common';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { EventLoopDelay } from './event-loop-delay.js';
import type { AppConfig } from '../config/app-config.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsListener } from './metrics-listener.js';
import { METRICS_REGISTRY, Metrics } from './metrics.js';
import { ProjectionMetrics } from './projection-metrics.js';

/**
 * Metrics: one registry per application instance (several instances in one test process do not clash), with
 * prom-client's default process metrics, the service's own metrics (event-loop delay included) and GET /metrics, on the public listener or,
 * with METRICS_PORT, on a listener of its own (MetricsListener).
 */
@Global()
@Module({})
export class ObservabilityModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ObservabilityModule,
      controllers: config.metricsPort === null ? [MetricsController] : [],
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
        MetricsListener,
      ],
      exports: [METRICS_REGISTRY, Metrics, MetricsListener],
    };
  }
}
