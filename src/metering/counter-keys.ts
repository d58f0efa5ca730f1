import type { BudgetScope } from './leases/quota-gate.js';

/**
 * Names of the hot-path counters (Redis keys, or the in-process map's keys in embedded mode).
 * quota: live credits used by an organization in a month, including reservations of calls still running.
 * units: the running count of volume-priced units of a price class (see UnitCharge).
 * keySpend, projectSpend: credits used by a key (of its environment) and by a project's live keys in a month,
 * including reservations of calls still running; kept only for keys and projects that have a budget.
 */
export const counterKeys = {
  quota: (prefix: string, orgId: string, month: string) => `${prefix}quota:${orgId}:${month}`,
  /**
   * Credit leases of an organization's month, or of one of its budgets (a key's or a project's): outstanding credits
   * per lease (see CreditLeases).
   */
  leases: (prefix: string, orgId: string, month: string, budget?: BudgetScope) =>
    `${prefix}leases:${orgId}:${month}${budget ? `:${budget.scope}:${budget.id}` : ''}`,
  /** The receipt of one batch of lease steps (what it answered; kept a day, so that a batch sent again is a no-op). */
  leaseReceipt: (prefix: string, batchId: string) => `${prefix}lease-receipt:${batchId}`,
  keySpend: (prefix: string, keyId: string, month: string) => `${prefix}spend:key:${keyId}:${month}`,
  projectSpend: (prefix: string, projectId: string, month: string) => `${prefix}spend:project:${projectId}:${month}`,
  units: (prefix: string, orgId: string, month: string, environment: string, priceClass: string) =>
    `${prefix}units:${orgId}:${month}:${environment}:${priceClass}`,
};

/** 'YYYY-MM' of a date in UTC: the billing month. */
export function billingMonth(at: Date): string {
  return at.toISOString().slice(0, 7);
}
