import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Database } from './database.js';
import { EmbeddedPostgres } from './embedded-postgres.js';
import { EmbeddedVacuum } from './embedded-vacuum.js';
import { INDEX_DATABASE } from './index-database.js';
import { mainDatabaseSets, migrate, type MigrationSet } from './migrator.js';
import { INDEX_READS, readReplicaProviders } from './read-replica.providers.js';
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

/** Applies `sets` to the database at `url`, then opens the process's pool on it. */
async function migratedDatabase(
  config: AppConfig,
  url: string,
  sets: MigrationSet[],
  poolSize: number,
  singleBackend: boolean,
): Promise<Database> {
  // Migrations may wait for another node's (an advisory lock) and build indexes: no statement time limit.
  const migrations = Database.connect(url, config.databaseSchema, 1, { connectMs: config.databaseConnectTimeoutMs });
  try {
    await migrate(migrations.pool, config.databaseSchema, sets);
  } finally {
    await migrations.close();
  }
  return Database.connect(url, config.databaseSchema, poolSize, {
    connectMs: config.databaseConnectTimeoutMs,
    queryMs: config.databaseQueryTimeoutMs,
    singleBackend,
  });
}

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
      useFactory: (config: AppConfig, embedded: EmbeddedPostgres | null) =>
        migratedDatabase(
          config,
          config.databaseUrl ?? embedded!.connectionString,
          mainDatabaseSets(config.indexDatabaseUrl !== undefined),
          config.databasePoolSize,
          embedded !== null,
        ),
    },
    {
      provide: INDEX_DATABASE,
      inject: [APP_CONFIG, Database],
      useFactory: (config: AppConfig, db: Database) =>
        config.indexDatabaseUrl
          ? migratedDatabase(config, config.indexDatabaseUrl, ['index'], config.indexDatabasePoolSize, false)
          : db,
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
  exports: [Database, INDEX_DATABASE, ReplicaRouter, INDEX_READS, ReplicaMetrics],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(
    private readonly db: Database,
    @Inject(INDEX_DATABASE) private readonly indexDb: Database,
    @Inject(EMBEDDED_POSTGRES) private readonly embedded: EmbeddedPostgres | null,
    @Inject(EMBEDDED_VACUUM) private readonly vacuum: EmbeddedVacuum | null,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.vacuum?.stop();
    if (this.indexDb !== this.db) await this.indexDb.close().catch(() => {});
    await this.db.close().catch(() => {});
    await this.embedded?.stop();
  }
}
