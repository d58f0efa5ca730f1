import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Database } from '../database/database.js';
import { Metrics } from '../observability/metrics.js';
import { TimedEventStore } from '../observability/timed-event-store.js';
import { EVENT_STORE, type EventStore } from './event-store.port.js';
import { PostgresEventStore } from './postgres/postgres-event-store.js';

/** EventStoreDB when EVENTSTORE_URL is set, otherwise the PostgreSQL table store. */
@Global()
@Module({
  providers: [
    {
      provide: EVENT_STORE,
      inject: [APP_CONFIG, Database, { token: Metrics, optional: true }],
      useFactory: async (config: AppConfig, db: Database, metrics?: Metrics): Promise<EventStore> => {
        // The EventStoreDB client (gRPC) is loaded only when it is used: every process starts faster without it.
        const store = config.eventStoreUrl
          ? (await import('./eventstoredb/eventstoredb-event-store.js')).EventStoreDbEventStore.fromConnectionString(
              config.eventStoreUrl,
            )
          : // Other processes' appends are heard (LISTEN) and announced (NOTIFY) in the services mode only.
            await PostgresEventStore.create(db, {
              listen: config.mode === 'services',
              announce: config.mode === 'services',
            });
        // Appends are timed (event_store_append_duration_seconds) when the observability module is loaded.
        return metrics ? new TimedEventStore(store, metrics.eventStoreAppendDuration) : store;
      },
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
