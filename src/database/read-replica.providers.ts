import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { METRICS_REGISTRY } from '../observability/metrics.js';
import { Database } from './database.js';
import { INDEX_DATABASE } from './index-database.js';
import { ReplicaMetrics } from './replica-metrics.js';
import { ReplicaRouter } from './replica-router.js';

/** The `database` label of the main database's replica metrics. */
export const MAIN_DATABASE = 'main';
/** The `database` label of the index database's replica metrics (INDEX_DATABASE_URL). */
export const INDEX_DATABASE_LABEL = 'index';
/**
 * The ReplicaRouter of the index's database: the main one's when the index is in the main database, else its own
 * (INDEX_DATABASE_READ_URL; every read on the index primary without it).
 */
export const INDEX_READS = Symbol('INDEX_READS');

/** Closes the replicas' pools and stops their lag measurements when the application shuts down. */
@Injectable()
export class ReadReplicaShutdown implements OnApplicationShutdown {
  constructor(
    private readonly router: ReplicaRouter,
    @Inject(INDEX_READS) private readonly indexReads: ReplicaRouter,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.indexReads !== this.router) await this.indexReads.close();
    await this.router.close();
  }
}

/**
 * The main database's ReplicaRouter (DATABASE_READ_URL; every read on the primary without it, and always in embedded
 * mode), the index database's (INDEX_READS) and the replica metrics, in the application's registry when it has one.
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
      const replica = config.databaseUrl
        ? replicaOptions(config, config.databaseReadUrl, config.databasePoolSize)
        : undefined;
      const router = ReplicaRouter.create(db, replica, metrics, MAIN_DATABASE);
      await router.start();
      return router;
    },
  },
  {
    provide: INDEX_READS,
    inject: [APP_CONFIG, INDEX_DATABASE, ReplicaRouter, ReplicaMetrics],
    useFactory: async (config: AppConfig, indexDb: Database, main: ReplicaRouter, metrics: ReplicaMetrics) => {
      if (!config.indexDatabaseUrl) return main;
      const replica = replicaOptions(config, config.indexDatabaseReadUrl, config.indexDatabasePoolSize);
      const router = ReplicaRouter.create(indexDb, replica, metrics, INDEX_DATABASE_LABEL);
      await router.start();
      return router;
    },
  },
  ReadReplicaShutdown,
];

/** A replica's settings: its URL, and the bound and timeouts every replica shares (none without a URL). */
function replicaOptions(config: AppConfig, url: string | undefined, poolSize: number) {
  return url
    ? {
        url,
        maxLagMs: config.databaseReadMaxLagMs,
        poolSize,
        connectTimeoutMs: config.databaseConnectTimeoutMs,
        queryTimeoutMs: config.databaseQueryTimeoutMs,
      }
    : undefined;
}
