import { billingMonth } from '../counter-keys.js';
import type { SpendingBeyondAllowance } from '../grants/credit-grant-views.js';
import { monthlyCreditLimit } from '../org-plans.service.js';
import { formatScaled, toScaled } from './decimal.js';
import type { UsageReportDto } from './ledger-response.dto.js';

type LimitFigures = Pick<UsageReportDto, 'credits_limit' | 'credits_limit_parts' | 'credits_remaining'>;

/**
 * The limit a month's usage is shown against. The current month: the organization's limit as the quota enforces it
 * (the allowance, what the grants add this month, the overage cap). A past month keeps what it always showed: the
 * allowance of the plan that held at its end.
 */
export function usageLimit(
  report: Pick<UsageReportDto, 'month' | 'plan' | 'credits_used'>,
  spending: Pick<SpendingBeyondAllowance, 'grants' | 'overage'>,
  now = new Date(),
): LimitFigures {
  const allowance = report.plan?.monthly_credit_allowance ?? 0;
  if (report.month < billingMonth(now)) {
    return {
      credits_limit: allowance,
      credits_limit_parts: { allowance, grants: null, overage_cap: null },
      credits_remaining: remaining(allowance, report.credits_used),
    };
  }
  const grants = Number(
    formatScaled(
      spending.grants.reduce((sum, g) => sum + (toScaled(g.used) ?? 0n) + (toScaled(g.remaining) ?? 0n), 0n),
    ),
  );
  const overageCap = spending.overage?.credit_cap ?? 0;
  const limit = monthlyCreditLimit(allowance, grants, overageCap);
  return {
    credits_limit: limit,
    credits_limit_parts: { allowance, grants, overage_cap: overageCap },
    credits_remaining: remaining(limit, report.credits_used),
  };
}

/** limit − used, exactly, never below 0. */
function remaining(limit: number, used: number): number {
  const left = (toScaled(limit) ?? 0n) - (toScaled(used) ?? 0n);
  return Number(formatScaled(left > 0n ? left : 0n));
}
