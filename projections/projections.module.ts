import {
  Global,
  Inject,
  Logger,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../src/config/app-config.js';
import { Database } from '../src/database/database.js';
import { EVENT_STORE, type EventStore } from '../src/event-store/event-store.port.js';
import { ReadModelProgress } from '../src/event-store/read-model-progress.port.js';
import { ReadYourWrites } from '../src/event-store/read-your-writes.js';
import { CHARGED_TOTALS } from '../src/metering/charged-totals.port.js';
import { ProjectedChargedTotals } from './projected-charged-totals.js';
import { ProjectionRunner } from './projection-runner.js';
import { READ_MODEL_PROJECTORS, READ_MODELS_CHECKPOINT } from './read-models/index.js';

@Global()
@Module({
  providers: [
    {
      provide: ProjectionRunner,
      inject: [Database, EVENT_STORE, APP_CONFIG],
      useFactory: (db: Database, store: EventStore, config: AppConfig) => {
        const logger = new Logger('Projections');
        return new ProjectionRunner(db, store, {
          checkpointName: READ_MODELS_CHECKPOINT,
          projectors: READ_MODEL_PROJECTORS,
          gatherMs: config.projectionGatherMs,
          onError: (error) => logger.error(`projection batch failed: ${(error as Error).message}`),
        });
      },
    },
    {
      provide: CHARGED_TOTALS,
      inject: [Database, ProjectionRunner, APP_CONFIG],
      useFactory: (db: Database, runner: ProjectionRunner, config: AppConfig) =>
        new ProjectedChargedTotals(db, runner, config.projectionWaitTimeoutMs),
    },
    { provide: ReadModelProgress, useExisting: ProjectionRunner },
    ReadYourWrites,
  ],
  exports: [ProjectionRunner, ReadModelProgress, ReadYourWrites, CHARGED_TOTALS],
})
export class ProjectionsModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly runner: ProjectionRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.runProjections) this.runner.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }
}
