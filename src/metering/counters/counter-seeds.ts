import { Inject, Injectable } from '@nestjs/common';
import { ProjectionRunner } from '../../../projections/projection-runner.js';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { Database } from '../../database/database.js';
import { EVENT_STORE, type EventStore, START } from '../../event-store/event-store.port.js';

/**
 * Starting values of counters that are missing (first call of a month, or Redis lost its data): the read models,
 * once the projections include every charge stored so far.
 */
@Injectable()
export class CounterSeeds {
  constructor(
    private readonly db: Database,
    private readonly projections: ProjectionRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async liveCredits(orgId: string, month: string): Promise<number> {
    await this.caughtUp();
    const result = await this.db.query<{ credits: string }>(
      `SELECT credits FROM monthly_totals WHERE org_id = $1 AND month = $2 AND environment = 'live'`,
      [orgId, month],
    );
    return Math.round(Number(result.rows[0]?.credits ?? 0));
  }

  async units(orgId: string, month: string, environment: string, priceClass: string): Promise<number> {
    await this.caughtUp();
    const result = await this.db.query<{ units: string }>(
      'SELECT units FROM monthly_units WHERE org_id = $1 AND month = $2 AND environment = $3 AND price_class = $4',
      [orgId, month, environment, priceClass],
    );
    return Number(result.rows[0]?.units ?? 0);
  }

  private async caughtUp(): Promise<void> {
    const head = await this.store.headPosition();
    if (head !== START) await this.projections.waitFor(head, this.config.projectionWaitTimeoutMs);
  }
}
