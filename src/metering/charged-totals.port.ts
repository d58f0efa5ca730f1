import type { Position } from '../event-store/event-store.port.js';
import type { SeedValue } from './counters/credit-counters.js';

/**
 * What metering asks of the projections: charged totals as of a position of the store, and the news it must
 * follow. Every read waits first until the projections include every event stored so far (rejecting after
 * PROJECTION_WAIT_TIMEOUT_MS). Implemented on the projections side, so that metering does not reach into them.
 */
export interface ChargedTotals {
  /** The organization's live credits charged in `month`, and the position of the store that total is as of. */
  liveCredits(orgId: string, month: string): Promise<SeedValue>;
  /** The organization's test credits charged in `month` (no allowance counts them), and the position they are as of. */
  testCredits(orgId: string, month: string): Promise<SeedValue>;
  /** One key's credits charged in `month` (of its environment), and the position of the store that total is as of. */
  keyCredits(orgId: string, keyId: string, month: string): Promise<SeedValue>;
  /** A project's live credits charged in `month`, and the position of the store that total is as of. */
  projectLiveCredits(orgId: string, projectId: string, month: string): Promise<SeedValue>;
  /** Units of one price class charged in `month`, and the position of the store that count is as of. */
  units(orgId: string, month: string, environment: string, priceClass: string): Promise<SeedValue>;
  /** The position of a charge in the store; null when the ledger has no such charge. */
  chargePosition(chargeId: string): Promise<Position | null>;
  /** Live credits charged in `month` by the calls of one credit lease (their charge ids start with its id). */
  leaseCredits(leaseId: string, orgId: string, month: string): Promise<number>;
  /** Credits charged in `month` by the calls that drew on one budget lease (their charges name it). */
  budgetLeaseCredits(leaseId: string, orgId: string, month: string): Promise<number>;
  /**
   * Calls `listener` with the organization of every PlanChanged (and credit grant or revocation), once this node has
   * it projected or seen.
   */
  onPlanChanged(listener: (orgId: string) => void): void;
}

export const CHARGED_TOTALS = Symbol('CHARGED_TOTALS');
