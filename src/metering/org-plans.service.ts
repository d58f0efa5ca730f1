import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Database } from '../database/database.js';
import { CHARGED_TOTALS, type ChargedTotals } from './charged-totals.port.js';
import { billingMonth } from './counter-keys.js';
import { type GrantBalance, grantContribution } from './grants/grant-spending.js';

export interface OrgPlan {
  readonly plan: string;
  readonly monthlyCreditAllowance: number;
  /** Pay-as-you-go past the allowance and grants: at most `creditCap` credits a month; null: none. */
  readonly overage: { readonly creditCap: number; readonly pricePerCredit: string } | null;
  /** What the grants add to this month's limit now (what they paid this month, and what they can still pay). */
  readonly grantCredits: number;
  /**
   * The organization's live credits this month, what the quota enforces: the allowance, the grants and the overage
   * cap together.
   */
  readonly monthlyCreditLimit: number;
  readonly rateLimitPerMinute: { readonly live: number; readonly test: number };
}

/**
 * The plan of an organization as the hot path needs it, cached per node for a moment: a PlanChanged event (or a
 * grant's) applies at once on the node that projects it and within PLAN_CACHE_MS on the others; a grant that expires
 * stops counting when it expires (the cached plan lasts no longer than the soonest expiry).
 */
export const PLAN_CACHE_MS = 2000;

/**
 * An organization's live credits in a month, what the quota enforces: the allowance, what its grants add this month
 * (what they paid in it and what they can still pay) and the overage cap, in whole credits.
 */
export function monthlyCreditLimit(allowance: number, grantCredits: number, overageCap: number): number {
  return Math.floor(allowance + grantCredits + overageCap);
}

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
    const now = new Date();
    const month = billingMonth(now);
    const result = await this.db.query<{
      plan: string;
      monthly_credit_allowance: string;
      rate_limit_live: number;
      rate_limit_test: number;
      overage_credit_cap: string | null;
      overage_price_per_credit: string | null;
    }>(
      `SELECT plan, monthly_credit_allowance, rate_limit_live, rate_limit_test, overage_credit_cap,
         overage_price_per_credit FROM organizations WHERE org_id = $1`,
      [orgId],
    );
    const row = result.rows[0];
    if (!row) return null;
    const grants = await this.grants(orgId, month);
    const grantCredits = grants.reduce((sum, grant) => sum + grantContribution(grant, month, now), 0);
    const allowance = Number(row.monthly_credit_allowance);
    const overage =
      row.overage_credit_cap === null
        ? null
        : { creditCap: Number(row.overage_credit_cap), pricePerCredit: row.overage_price_per_credit ?? '0' };
    const plan: OrgPlan = {
      plan: row.plan,
      monthlyCreditAllowance: allowance,
      overage,
      grantCredits,
      monthlyCreditLimit: monthlyCreditLimit(allowance, grantCredits, overage?.creditCap ?? 0),
      rateLimitPerMinute: { live: row.rate_limit_live, test: row.rate_limit_test },
    };
    if (changes === this.changes) {
      const expiries = grants
        .map((grant) => grant.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY)
        .filter((at) => at > now.getTime());
      const untilExpiry = Math.min(...expiries, now.getTime() + PLAN_CACHE_MS) - now.getTime();
      const untilMonthEnd = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1) - now.getTime();
      this.cache.set(orgId, plan, { ttl: Math.max(1, Math.min(PLAN_CACHE_MS, untilExpiry, untilMonthEnd)) });
    }
    return plan;
  }

  /** The organization's grants that can count this month (not revoked before it, not expired before it). */
  private async grants(orgId: string, month: string): Promise<GrantBalance[]> {
    const { rows } = await this.db.query<{
      grant_id: string;
      credits: string;
      recurrence: 'once' | 'monthly';
      expires_at: Date | null;
      granted_at: Date;
      revoked_at: Date | null;
      used_this_month: string;
      used_other: string;
    }>(
      `SELECT g.grant_id, g.credits, g.recurrence, g.expires_at, g.granted_at, g.revoked_at,
         coalesce(sum(u.credits) FILTER (WHERE u.month = $2), 0) AS used_this_month,
         coalesce(sum(u.credits) FILTER (WHERE u.month <> $2), 0) AS used_other
       FROM credit_grants g LEFT JOIN credit_grant_usage u ON u.grant_id = g.grant_id
       WHERE g.org_id = $1
       GROUP BY g.grant_id`,
      [orgId, month],
    );
    return rows.map((r) => ({
      grantId: r.grant_id,
      credits: Number(r.credits),
      recurrence: r.recurrence,
      expiresAt: r.expires_at,
      grantedAt: r.granted_at,
      revokedAt: r.revoked_at,
      usedThisMonth: Number(r.used_this_month),
      usedBefore: Number(r.used_other),
    }));
  }
}
