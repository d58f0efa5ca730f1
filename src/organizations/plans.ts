/** Plans: a monthly credit allowance and per-minute request limits for live and test keys. */
export interface PlanLimits {
  readonly monthly_credit_allowance: number;
  readonly rate_limit_per_minute: { readonly live: number; readonly test: number };
}

export const PLANS = {
  free: { monthly_credit_allowance: 1_000, rate_limit_per_minute: { live: 100, test: 20 } },
  project: { monthly_credit_allowance: 4_000, rate_limit_per_minute: { live: 300, test: 60 } },
  bootstrap: { monthly_credit_allowance: 15_000, rate_limit_per_minute: { live: 600, test: 100 } },
  startup: { monthly_credit_allowance: 38_000, rate_limit_per_minute: { live: 1_000, test: 100 } },
  growth: { monthly_credit_allowance: 100_000, rate_limit_per_minute: { live: 1_000, test: 100 } },
  enterprise: { monthly_credit_allowance: 1_000_000, rate_limit_per_minute: { live: 10_000, test: 1_000 } },
} as const satisfies Record<string, PlanLimits>;

export type PlanName = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as PlanName[];

export function planLimits(
  plan: PlanName,
  overrides: Partial<{ allowance: number; rpmLive: number; rpmTest: number }> = {},
): PlanLimits {
  const base = PLANS[plan];
  return {
    monthly_credit_allowance: overrides.allowance ?? base.monthly_credit_allowance,
    rate_limit_per_minute: {
      live: overrides.rpmLive ?? base.rate_limit_per_minute.live,
      test: overrides.rpmTest ?? base.rate_limit_per_minute.test,
    },
  };
}
