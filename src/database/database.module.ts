import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Database } from './database.js';
import { EmbeddedPostgres } from './embedded-postgres.js';
import { migrate } from './migrator.js';

const EMBEDDED_POSTGRES = Symbol('EMBEDDED_POSTGRES');

@Global()
@Module({
  providers: [
    {
      provide: EMBEDDED_POSTGRES,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig) =>
        config.databaseUrl
          ? null
          : EmbeddedPostgres.start(config.dataDir, config.embeddedPgPort, config.databasePoolSize + 5),
    },
    {
      provide: Database,
      inject: [APP_CONFIG, EMBEDDED_POSTGRES],
      useFactory: async (config: AppConfig, embedded: EmbeddedPostgres | null) => {
        const url = config.databaseUrl ?? embedded!.connectionString;
        const db = Database.connect(url, config.databaseSchema, config.databasePoolSize);
        await migrate(db.pool, config.databaseSchema, ['store', 'readModels']);
        return db;
      },
    },
  ],
  exports: [Database],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(
    private readonly db: Database,
    @Inject(EMBEDDED_POSTGRES) private readonly embedded: EmbeddedPostgres | null,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.db.close().catch(() => {});
    await this.embedded?.stop();
  }
}
