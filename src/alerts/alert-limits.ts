import { Inject, Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import { CHARGED_TOTALS, type ChargedTotals } from '../metering/charged-totals.port.js';
import { OrgPlansService } from '../metering/org-plans.service.js';
import { type AlertScope, DEFAULT_THRESHOLDS } from './events/alert.events.js';

/** One limit an alert watches: what it counts, in which month. */
export interface WatchedLimit {
  readonly orgId: string;
  readonly scope: AlertScope;
  /** The organization's, project's or key's id. */
  readonly scopeId: string;
  readonly month: string;
}

/**
 * A limit's credits used and its size, counted as the quota check counts them: the organization's live credits
 * against its allowance, a project's live credits and a key's credits against their monthly limits.
 */
@Injectable()
export class AlertLimits {
  constructor(
    private readonly db: Database,
    private readonly plans: OrgPlansService,
    @Inject(CHARGED_TOTALS) private readonly totals: ChargedTotals,
  ) {}

  /** Null when the scope has no limit (a key or project without a budget, an organization that is gone). */
  async limitOf(limit: WatchedLimit): Promise<number | null> {
    switch (limit.scope) {
      case 'organization':
        return this.organizationLimit(limit.orgId);
      case 'project':
        return this.budget('SELECT monthly_credit_limit FROM projects WHERE project_id = $1', limit.scopeId);
      case 'key':
        return this.budget('SELECT monthly_credit_limit FROM api_keys WHERE key_id = $1', limit.scopeId);
    }
  }

  /**
   * The organization's monthly limit, read where the quota check reads it (its plan's allowance): the one place to
   * extend once grants and overage add to it.
   */
  async organizationLimit(orgId: string): Promise<number | null> {
    return (await this.plans.get(orgId))?.monthlyCreditAllowance ?? null;
  }

  async usedOf(limit: WatchedLimit): Promise<number> {
    const { orgId, scopeId, month } = limit;
    switch (limit.scope) {
      case 'organization':
        return (await this.totals.liveCredits(orgId, month)).value;
      case 'project':
        return (await this.totals.projectLiveCredits(orgId, scopeId, month)).value;
      case 'key':
        return (await this.totals.keyCredits(orgId, scopeId, month)).value;
    }
  }

  async thresholdsOf(limit: WatchedLimit): Promise<readonly number[]> {
    const result = await this.db.query<{ thresholds: number[] }>(
      'SELECT thresholds FROM alert_thresholds WHERE org_id = $1 AND scope = $2 AND scope_id = $3',
      [limit.orgId, limit.scope, limit.scopeId],
    );
    return result.rows[0]?.thresholds ?? DEFAULT_THRESHOLDS;
  }

  private async budget(sql: string, id: string): Promise<number | null> {
    const row = (await this.db.query<{ monthly_credit_limit: string | null }>(sql, [id])).rows[0];
    return row?.monthly_credit_limit == null ? null : Number(row.monthly_credit_limit);
  }
}
