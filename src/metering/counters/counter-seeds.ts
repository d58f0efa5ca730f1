import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import { loadCheckpoint } from '../../../projections/checkpoint-store.js';
import { ProjectionRunner } from '../../../projections/projection-runner.js';
import { READ_MODELS_CHECKPOINT } from '../../../projections/read-models/index.js';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { Database, quoteIdent } from '../../database/database.js';
import { EVENT_STORE, type EventStore, type Position, START } from '../../event-store/event-store.port.js';
import type { SeedValue } from './credit-counters.js';

/**
 * Starting values of counters that are missing (first call of a month, or Redis lost its data): the read models,
 * once the projections include every charge stored so far. Each value is read in one snapshot with the read models'
 * checkpoint, which says exactly which charges it includes: the calls still running when Redis lost the counter
 * add their own charge to the new one when it is not included (see RedisCreditCounters.settle).
 */
@Injectable()
export class CounterSeeds {
  constructor(
    private readonly db: Database,
    private readonly projections: ProjectionRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async liveCredits(orgId: string, month: string): Promise<SeedValue> {
    return this.snapshot(async (client) => {
      const result = await client.query<{ credits: string }>(
        `SELECT credits FROM monthly_totals WHERE org_id = $1 AND month = $2 AND environment = 'live'`,
        [orgId, month],
      );
      return Math.round(Number(result.rows[0]?.credits ?? 0));
    });
  }

  async units(orgId: string, month: string, environment: string, priceClass: string): Promise<SeedValue> {
    return this.snapshot(async (client) => {
      const result = await client.query<{ units: string }>(
        'SELECT units FROM monthly_units WHERE org_id = $1 AND month = $2 AND environment = $3 AND price_class = $4',
        [orgId, month, environment, priceClass],
      );
      return Number(result.rows[0]?.units ?? 0);
    });
  }

  /** The position of a charge in the store, from the ledger once it includes every stored event; null if absent. */
  async chargePosition(chargeId: string): Promise<Position | null> {
    await this.caughtUp();
    const result = await this.db.query<{ commit_position: string; prepare_position: string }>(
      'SELECT commit_position, prepare_position FROM ledger_entries WHERE charge_id = $1',
      [chargeId],
    );
    const row = result.rows[0];
    return row ? { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) } : null;
  }

  /**
   * The position of a charge known to be durable: it shows in the ledger once the projector applied it (and once no
   * older transaction still runs, as the store reads only what is safely committed), so this looks until it does.
   */
  async durableChargePosition(chargeId: string): Promise<Position> {
    const deadline = Date.now() + this.config.projectionWaitTimeoutMs;
    for (;;) {
      const position = await this.chargePosition(chargeId);
      if (position) return position;
      if (Date.now() > deadline) throw new Error(`charge ${chargeId} is not in the ledger yet`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The value and the checkpoint from one snapshot: the projector writes a batch and its checkpoint together. */
  private async snapshot(read: (client: pg.PoolClient) => Promise<number>): Promise<SeedValue> {
    await this.caughtUp();
    const client = await this.db.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await client.query(`SET LOCAL search_path TO ${quoteIdent(this.db.schema)}`);
      const covers = await loadCheckpoint(client, READ_MODELS_CHECKPOINT);
      const value = await read(client);
      await client.query('COMMIT');
      return { value, covers };
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  private async caughtUp(): Promise<void> {
    const head = await this.store.headPosition();
    if (head !== START) await this.projections.waitFor(head, this.config.projectionWaitTimeoutMs);
  }
}
