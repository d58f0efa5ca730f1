import { type RedisKeyspace, orgPart } from '../redis/redis-keyspace.js';
import type { BudgetScope } from './leases/quota-gate.js';

/**
 * Names of the hot-path counters (Redis keys, or the in-process map's keys in embedded mode).
 * quota: live credits used by an organization in a month, including reservations of calls still running.
 * units: the running count of volume-priced units of a price class (see UnitCharge).
 * keySpend, projectSpend: credits used by a key (of its environment) and by a project's live keys in a month,
 * including reservations of calls still running; kept only for keys and projects that have a budget.
 */
export const counterKeys = {
  quota: (space: RedisKeyspace, orgId: string, month: string) =>
    `${space.prefix}quota:${orgPart(space, orgId)}:${month}`,
  /**
   * Credit leases of an organization's month, or of one of its budgets (a key's or a project's): outstanding credits
   * per lease (see CreditLeases).
   */
  leases: (space: RedisKeyspace, orgId: string, month: string, budget?: BudgetScope) =>
    `${space.prefix}leases:${orgPart(space, orgId)}:${month}${budget ? `:${budget.scope}:${budget.id}` : ''}`,
  /**
   * The receipt of one batch of lease steps (what it answered; kept a day, so that a batch sent again is a no-op).
   * On a cluster a batch holds the steps of one hash tag, and its receipt carries that tag (see keyBesides).
   */
  leaseReceipt: (space: RedisKeyspace, batchId: string) => `${space.prefix}lease-receipt:${batchId}`,
  keySpend: (space: RedisKeyspace, orgId: string, keyId: string, month: string) =>
    `${space.prefix}spend:key:${keyId}:${month}${orgSuffix(space, orgId)}`,
  projectSpend: (space: RedisKeyspace, orgId: string, projectId: string, month: string) =>
    `${space.prefix}spend:project:${projectId}:${month}${orgSuffix(space, orgId)}`,
  units: (space: RedisKeyspace, orgId: string, month: string, environment: string, priceClass: string) =>
    `${space.prefix}units:${orgPart(space, orgId)}:${month}:${environment}:${priceClass}`,
};

/** A budget counter's names did not hold the organization: on a cluster its tag is added at the end. */
const orgSuffix = (space: RedisKeyspace, orgId: string) => (space.cluster ? `:${orgPart(space, orgId)}` : '');

/** 'YYYY-MM' of a date in UTC: the billing month. */
export function billingMonth(at: Date): string {
  return at.toISOString().slice(0, 7);
}
