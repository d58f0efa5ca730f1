import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Database } from '../database/database.js';
import { EVENT_STORE, type EventStore } from './event-store.port.js';
import { EventStoreDbEventStore } from './eventstoredb/eventstoredb-event-store.js';
import { PostgresEventStore } from './postgres/postgres-event-store.js';

/** EventStoreDB when EVENTSTORE_URL is set, otherwise the PostgreSQL table store. */
@Global()
@Module({
  providers: [
    {
      provide: EVENT_STORE,
      inject: [APP_CONFIG, Database],
      useFactory: async (config: AppConfig, db: Database): Promise<EventStore> =>
        config.eventStoreUrl
          ? EventStoreDbEventStore.fromConnectionString(config.eventStoreUrl)
          : PostgresEventStore.create(db, { listen: config.mode === 'services' }),
    },
  ],
  exports: [EVENT_STORE],
})
export class EventStoreModule implements OnApplicationShutdown {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
