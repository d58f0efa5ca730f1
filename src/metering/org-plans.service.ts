import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Database } from '../database/database.js';
import { CHARGED_TOTALS, type ChargedTotals } from './charged-totals.port.js';

export interface OrgPlan {
  readonly plan: string;
  readonly monthlyCreditAllowance: number;
  readonly rateLimitPerMinute: { readonly live: number; readonly test: number };
}

/**
 * The plan of an organization as the hot path needs it, cached per node for a moment: a PlanChanged event applies
 * at once on the node that projects it and within PLAN_CACHE_MS on the others.
 */
export const PLAN_CACHE_MS = 2000;

@Injectable()
export class OrgPlansService {
  private readonly cache = new LRUCache<string, OrgPlan>({ max: 50_000, ttl: PLAN_CACHE_MS });
  /** One query per organization at a time: the calls that miss the cache together wait for the same answer. */
  private readonly loading = new Map<string, Promise<OrgPlan | null>>();
  /** Bumped by every PlanChanged: a load that started before one does not fill the cache with the old plan. */
  private changes = 0;

  constructor(
    private readonly db: Database,
    @Inject(CHARGED_TOTALS) totals: ChargedTotals,
  ) {
    totals.onPlanChanged((orgId) => {
      this.cache.delete(orgId);
      this.loading.delete(orgId);
      this.changes++;
    });
  }

  async get(orgId: string): Promise<OrgPlan | null> {
    const cached = this.cache.get(orgId);
    if (cached) return cached;
    let pending = this.loading.get(orgId);
    if (!pending) {
      pending = this.load(orgId).finally(() => {
        if (this.loading.get(orgId) === pending) this.loading.delete(orgId);
      });
      this.loading.set(orgId, pending);
    }
    return pending;
  }

  private async load(orgId: string): Promise<OrgPlan | null> {
    const changes = this.changes;
    const result = await this.db.query<{
      plan: string;
      monthly_credit_allowance: string;
      rate_limit_live: number;
      rate_limit_test: number;
    }>('SELECT plan, monthly_credit_allowance, rate_limit_live, rate_limit_test FROM organizations WHERE org_id = $1', [
      orgId,
    ]);
    const row = result.rows[0];
    if (!row) return null;
    const plan: OrgPlan = {
      plan: row.plan,
      monthlyCreditAllowance: Number(row.monthly_credit_allowance),
      rateLimitPerMinute: { live: row.rate_limit_live, test: row.rate_limit_test },
    };
    if (changes === this.changes) this.cache.set(orgId, plan);
    return plan;
  }
}
