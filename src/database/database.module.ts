import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Database } from './database.js';
import { EmbeddedPostgres } from './embedded-postgres.js';
import { EmbeddedVacuum } from './embedded-vacuum.js';
import { migrate } from './migrator.js';
import { readReplicaProviders } from './read-replica.providers.js';
import { ReplicaMetrics } from './replica-metrics.js';
import { ReplicaRouter } from './replica-router.js';

const EMBEDDED_POSTGRES = Symbol('EMBEDDED_POSTGRES');

/** Where and how the embedded database runs: its data directory, its port, and its connections (the pool, and spare). */
export const embeddedPostgresArguments = (config: AppConfig): [string, number, number] => [
  config.dataDir,
  config.embeddedPgPort,
  config.databasePoolSize + 5,
];
const EMBEDDED_VACUUM = Symbol('EMBEDDED_VACUUM');

@Global()
@Module({
  providers: [
    {
      provide: EMBEDDED_POSTGRES,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig) =>
        config.databaseUrl ? null : EmbeddedPostgres.start(...embeddedPostgresArguments(config)),
    },
    {
      provide: Database,
      inject: [APP_CONFIG, EMBEDDED_POSTGRES],
      useFactory: async (config: AppConfig, embedded: EmbeddedPostgres | null) => {
        const url = config.databaseUrl ?? embedded!.connectionString;
        // Migrations may wait for another node's (an advisory lock) and build indexes: no statement time limit.
        const migrations = Database.connect(url, config.databaseSchema, 1, {
          connectMs: config.databaseConnectTimeoutMs,
        });
        try {
          await migrate(migrations.pool, config.databaseSchema, ['store', 'readModels']);
        } finally {
          await migrations.close();
        }
        return Database.connect(url, config.databaseSchema, config.databasePoolSize, {
          connectMs: config.databaseConnectTimeoutMs,
          queryMs: config.databaseQueryTimeoutMs,
          singleBackend: embedded !== null,
        });
      },
    },
    {
      provide: EMBEDDED_VACUUM,
      inject: [APP_CONFIG, EMBEDDED_POSTGRES, Database],
      useFactory: (config: AppConfig, embedded: EmbeddedPostgres | null, db: Database) => {
        if (!embedded) return null;
        const vacuum = new EmbeddedVacuum(db, config.embeddedVacuumIntervalMs);
        vacuum.start();
        return vacuum;
      },
    },
    ...readReplicaProviders,
  ],
  exports: [Database, ReplicaRouter, ReplicaMetrics],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(
    private readonly db: Database,
    @Inject(EMBEDDED_POSTGRES) private readonly embedded: EmbeddedPostgres | null,
    @Inject(EMBEDDED_VACUUM) private readonly vacuum: EmbeddedVacuum | null,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.vacuum?.stop();
    await this.db.close().catch(() => {});
    await this.embedded?.stop();
  }
}
