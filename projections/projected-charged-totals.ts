import type pg from 'pg';
import { type Database, quoteIdent } from '../src/database/database.js';
import type { Position } from '../src/event-store/event-store.port.js';
import type { ChargedTotals } from '../src/metering/charged-totals.port.js';
import type { SeedValue } from '../src/metering/counters/credit-counters.js';
import { loadCheckpoint } from './checkpoint-store.js';
import type { ProjectionRunner } from './projection-runner.js';
import { READ_MODELS_CHECKPOINT } from './read-models/index.js';

/** Events that change what an organization may spend: its plan, and its credit grants. */
const PLAN_EVENTS = new Set(['PlanChanged', 'CreditsGranted', 'CreditGrantRevoked']);

/**
 * Charged totals from the read models, once the projections include every charge stored so far. Each total is read
 * in one snapshot with the read models' checkpoint, which says exactly which charges it includes: the calls still
 * running when Redis lost a counter add their own charge to the new one when it is not included (see
 * RedisCreditCounters.settle).
 */
export class ProjectedChargedTotals implements ChargedTotals {
  constructor(
    private readonly db: Database,
    private readonly runner: ProjectionRunner,
    private readonly waitTimeoutMs: number,
  ) {}

  liveCredits(orgId: string, month: string): Promise<SeedValue> {
    return this.environmentCredits(orgId, month, 'live');
  }

  testCredits(orgId: string, month: string): Promise<SeedValue> {
    return this.environmentCredits(orgId, month, 'test');
  }

  private environmentCredits(orgId: string, month: string, environment: 'live' | 'test'): Promise<SeedValue> {
    return this.snapshot(async (client) => {
      const result = await client.query<{ credits: string }>(
        'SELECT credits FROM monthly_totals WHERE org_id = $1 AND month = $2 AND environment = $3',
        [orgId, month, environment],
      );
      return Math.round(Number(result.rows[0]?.credits ?? 0));
    });
  }

  keyCredits(orgId: string, keyId: string, month: string): Promise<SeedValue> {
    return this.snapshot(async (client) => {
      const result = await client.query<{ credits: string | null }>(
        'SELECT sum(credits) AS credits FROM usage_daily WHERE org_id = $1 AND month = $2 AND key_id = $3',
        [orgId, month, keyId],
      );
      return Math.round(Number(result.rows[0]?.credits ?? 0));
    });
  }

  projectLiveCredits(orgId: string, projectId: string, month: string): Promise<SeedValue> {
    return this.snapshot(async (client) => {
      const result = await client.query<{ credits: string | null }>(
        `SELECT sum(credits) AS credits FROM usage_daily
         WHERE org_id = $1 AND month = $2 AND project_id = $3 AND environment = 'live'`,
        [orgId, month, projectId],
      );
      return Math.round(Number(result.rows[0]?.credits ?? 0));
    });
  }

  units(orgId: string, month: string, environment: string, priceClass: string): Promise<SeedValue> {
    return this.snapshot(async (client) => {
      const result = await client.query<{ units: string }>(
        'SELECT units FROM monthly_units WHERE org_id = $1 AND month = $2 AND environment = $3 AND price_class = $4',
        [orgId, month, environment, priceClass],
      );
      return Number(result.rows[0]?.units ?? 0);
    });
  }

  async chargePosition(chargeId: string): Promise<Position | null> {
    await this.caughtUp();
    const result = await this.db.query<{ commit_position: string; prepare_position: string }>(
      'SELECT commit_position, prepare_position FROM ledger_entries WHERE charge_id = $1',
      [chargeId],
    );
    const row = result.rows[0];
    return row ? { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) } : null;
  }

  async leaseCredits(leaseId: string, orgId: string, month: string): Promise<number> {
    await this.caughtUp();
    const { rows } = await this.db.query<{ credits: string | null }>(
      `SELECT sum(credits) AS credits FROM ledger_entries
       WHERE org_id = $1 AND billing_month = $2 AND key_environment = 'live' AND charge_id LIKE $3`,
      [orgId, month, `${leaseId}%`],
    );
    return Math.round(Number(rows[0]?.credits ?? 0));
  }

  async budgetLeaseCredits(leaseId: string, orgId: string, month: string): Promise<number> {
    await this.caughtUp();
    const { rows } = await this.db.query<{ credits: string | null }>(
      `SELECT sum(credits) AS credits FROM ledger_entries
       WHERE org_id = $1 AND billing_month = $2 AND $3 = ANY(budget_leases)`,
      [orgId, month, leaseId],
    );
    return Math.round(Number(rows[0]?.credits ?? 0));
  }

  onPlanChanged(listener: (orgId: string) => void): void {
    this.runner.onEvents((events) => {
      for (const event of events) if (PLAN_EVENTS.has(event.type)) listener(String(event.data.org_id));
    });
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
    await this.runner.waitForHead(this.waitTimeoutMs);
  }
}
