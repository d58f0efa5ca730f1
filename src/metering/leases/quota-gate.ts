import { randomUUID } from 'node:crypto';
import type { Position } from '../../event-store/event-store.port.js';
import type { CreditCounters, Seed } from '../counters/credit-counters.js';

/** The budget a request draws on: a key's or a project's monthly credit limit (none: the organization's). */
export interface BudgetScope {
  readonly scope: 'key' | 'project';
  readonly id: string;
}

/**
 * What a call asks of a monthly limit: the most it can cost. The organization's (a live call's allowance, grants and
 * overage cap), or, with `budget`, its key's or project's.
 */
export interface QuotaRequest {
  /** The counter (counterKeys.quota, or keySpend / projectSpend for a budget). */
  readonly key: string;
  readonly orgId: string;
  readonly month: string;
  /** The limit the counter must stay within. */
  readonly allowance: number;
  readonly budget?: BudgetScope;
  readonly amount: number;
  /** Where the counter starts from when it is missing (the read models). */
  readonly seed: Seed;
}

/**
 * A reservation of a call's most credits, held until its charge is durable (`charged`) or known not to be
 * (`release`). `chargeId` is the id the call's charge must have: with leases, it names the lease the credits came
 * from, so that the ledger says how much of a dead node's lease was spent.
 */
export interface QuotaHold {
  readonly chargeId: string;
  /** The credit lease the credits came from (null without leases): a budget's is named in the charge. */
  readonly leaseId: string | null;
  /** Credits used as of the reservation (for the usage headers). */
  readonly used: number;
  /** The charge of `credits` is durable: count it, give back the rest. Returns the credits used after it. */
  charged(credits: number, chargedAt: () => Promise<Position | null>): Promise<number>;
  /** Nothing was charged: give the reservation back. Returns the credits used after it (null: unknown). */
  release(): Promise<number | null>;
}

export type Admission = { readonly ok: true; readonly hold: QuotaHold } | { readonly ok: false; readonly used: number };

/** Where live calls reserve credits: Redis leases shared by the nodes, or the in-process counters (embedded). */
export interface QuotaGate {
  reserve(request: QuotaRequest): Promise<Admission>;
  /** The reservation when it can be made at once from what this node holds (a lease); null otherwise. */
  tryReserve?(request: QuotaRequest): Admission | null;
  /** The credits used of the counter `key`, as this node knows them (its own charges included, counted or not). */
  usedNow(key: string, seed: Seed): Promise<number>;
  /** The counter `key` was changed outside the gate (a deferred call's reservation or settlement): its value now. */
  observe(key: string, used: number): void;
}

export const QUOTA_GATE = Symbol('QUOTA_GATE');

/**
 * Reserves in the counters directly, one change per call: the single-process embedded mode, where the counters are
 * in memory and a lease would save nothing.
 */
export class CounterQuotaGate implements QuotaGate {
  constructor(private readonly counters: CreditCounters) {}

  usedNow(key: string, seed: Seed): Promise<number> {
    return this.counters.read(key, seed);
  }

  /** Nothing to note: every call reads the counters themselves. */
  observe(): void {}

  async reserve(request: QuotaRequest): Promise<Admission> {
    const { key, amount, allowance, seed } = request;
    const reservation = await this.counters.reserve(key, amount, allowance, seed, null);
    if (!reservation.ok) return { ok: false, used: reservation.used };
    const counters = this.counters;
    return {
      ok: true,
      hold: {
        chargeId: randomUUID(),
        leaseId: null,
        used: reservation.used,
        async charged(credits) {
          if (credits === amount) return reservation.used;
          return (await counters.adjust(key, credits - amount)) ?? (await counters.read(key, seed));
        },
        release: () => counters.adjust(key, -amount),
      },
    };
  }
}
