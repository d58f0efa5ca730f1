import { Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { METRICS_REGISTRY } from '../observability/metrics.js';
import { Database } from './database.js';
import { ReplicaMetrics } from './replica-metrics.js';
import { ReplicaRouter } from './replica-router.js';

/** The `database` label of the main database's replica metrics. */
export const MAIN_DATABASE = 'main';

/** Closes the replica's pool and stops its lag measurements when the application shuts down. */
@Injectable()
export class ReadReplicaShutdown implements OnApplicationShutdown {
  constructor(private readonly router: ReplicaRouter) {}

  async onApplicationShutdown(): Promise<void> {
    await this.router.close();
  }
}

/**
 * The main database's ReplicaRouter (DATABASE_READ_URL; every read on the primary without it, and always in embedded
 * mode) and the replica metrics, in the application's registry when it has one.
 */
export const readReplicaProviders: Provider[] = [
  {
    provide: ReplicaMetrics,
    inject: [{ token: METRICS_REGISTRY, optional: true }],
    useFactory: (registry: Registry | undefined) => new ReplicaMetrics(registry ?? new Registry()),
  },
  {
    provide: ReplicaRouter,
    inject: [APP_CONFIG, Database, ReplicaMetrics],
    useFactory: async (config: AppConfig, db: Database, metrics: ReplicaMetrics) => {
      const replica =
        config.databaseUrl && config.databaseReadUrl
          ? {
              url: config.databaseReadUrl,
              maxLagMs: config.databaseReadMaxLagMs,
              poolSize: config.databasePoolSize,
              connectTimeoutMs: config.databaseConnectTimeoutMs,
              queryTimeoutMs: config.databaseQueryTimeoutMs,
            }
          : undefined;
      const router = ReplicaRouter.create(db, replica, metrics, MAIN_DATABASE);
      await router.start();
      return router;
    },
  },
  ReadReplicaShutdown,
];
