import { redisKeyspace } from '../../redis/redis-keyspace.js';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { isUnavailableDependency } from '../../http/unavailable-dependency.js';
import type { KeyRecord } from '../../keys/key-record.js';
import { counterKeys } from '../counter-keys.js';
import { CounterSeeds } from '../counters/counter-seeds.js';
import { CREDIT_COUNTERS, type CounterJournal, type CreditCounters, type Seed } from '../counters/credit-counters.js';
import { takeBackChange } from '../counters/take-back-change.js';
import { QUOTA_GATE, type QuotaGate, type QuotaHold } from '../leases/quota-gate.js';

/** Which limit bit a refused call: the key's, its project's, or the organization's (allowance and what adds to it). */
export type SpendLimit = 'key' | 'project' | 'organization';

/** A budget's counter, and where it starts from when it is missing. */
export interface BudgetCounter {
  readonly scope: Exclude<SpendLimit, 'organization'>;
  readonly key: string;
  readonly seed: Seed;
}

/** One budget that binds a call: its counter and its limit. */
interface Budget extends BudgetCounter {
  readonly limit: number;
}

/** Who a call is billed to, as far as budgets go. */
export interface BudgetedKey {
  readonly keyId: string;
  readonly orgId: string;
  readonly projectId: string;
  readonly environment: KeyRecord['environment'];
}

/** A call's reservation in one budget's counter. */
export interface BudgetHold extends Budget {
  readonly amount: number;
}

export type BudgetAdmission = { readonly ok: true; readonly holds: readonly BudgetHold[] } | BudgetRefusal;

export interface BudgetRefusal {
  readonly ok: false;
  readonly scope: Budget['scope'];
  readonly used: number;
  readonly limit: number;
}

/** A live call's reservation in one budget, held through the quota gate (a credit lease in services mode). */
export interface BudgetLeaseHold {
  readonly scope: Budget['scope'];
  readonly hold: QuotaHold;
}

export type BudgetLeaseAdmission = { readonly ok: true; readonly holds: readonly BudgetLeaseHold[] } | BudgetRefusal;

/**
 * The monthly credit limits of keys and projects (KeyBudgetSet, ProjectBudgetSet), kept as the allowance is: a call
 * reserves the most it can cost against each budget that binds it (the key's own, which counts the credits of the
 * key's environment; its project's, which counts the project's live credits), so no budget is ever overspent,
 * however many calls or nodes.
 * - A call of the metering pipeline (`admit`) holds it through the quota gate: from a credit lease of the budget's
 *   counter in services mode (no network step before the work; the charge names the leases it drew on), from the
 *   in-process counter in embedded mode.
 * - A deferred charge (`reserve`) adds it to the counter itself, journaled, and settles it with the charge.
 * Keys and projects without a budget cost nothing here.
 */
@Injectable()
export class SpendBudgets {
  private readonly logger = new Logger('SpendBudgets');
  /** The counters of a key's month (its project and environment never change), built once per key and month. */
  private readonly counterCache = new LRUCache<string, readonly BudgetCounter[]>({ max: 10_000 });

  constructor(
    @Inject(CREDIT_COUNTERS) private readonly counters: CreditCounters,
    private readonly seeds: CounterSeeds,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(QUOTA_GATE) private readonly gate: QuotaGate,
  ) {}

  /** Holds `amount` in every budget of the key; the first that it does not fit refuses (the others given back). */
  async admit(key: KeyRecord, month: string, amount: number): Promise<BudgetLeaseAdmission> {
    const holds: BudgetLeaseHold[] = [];
    for (const budget of this.budgetsOf(key, month)) {
      const id = budget.scope === 'key' ? key.keyId : key.projectId;
      const request = {
        key: budget.key,
        orgId: key.orgId,
        month,
        allowance: budget.limit,
        amount,
        seed: budget.seed,
        budget: { scope: budget.scope, id },
      };
      let admission;
      try {
        // A call that fits a lease this node holds is admitted without a turn of the event loop.
        admission = this.gate.tryReserve?.(request) ?? (await this.gate.reserve(request));
      } catch (error) {
        await this.releaseLeased(holds);
        throw error;
      }
      if (!admission.ok) {
        await this.releaseLeased(holds);
        return { ok: false, scope: budget.scope, used: admission.used, limit: budget.limit };
      }
      holds.push({ scope: budget.scope, hold: admission.hold });
    }
    return { ok: true, holds };
  }

  /** Nothing is charged: what `admit` held goes back. */
  async releaseLeased(holds: readonly BudgetLeaseHold[]): Promise<void> {
    for (const { hold } of holds) await hold.release().catch(() => null);
  }

  /** Reserves `amount` in every budget of the key; the first that it does not fit refuses (the others given back). */
  async reserve(
    key: KeyRecord,
    month: string,
    amount: number,
    journal: CounterJournal | null,
  ): Promise<BudgetAdmission> {
    const holds: BudgetHold[] = [];
    for (const budget of this.budgetsOf(key, month)) {
      let reservation;
      try {
        reservation = await this.counters.reserve(budget.key, amount, budget.limit, budget.seed, journal);
      } catch (error) {
        // It may have run with its answer lost: taken back with the others (the journal says whether it ran).
        if (journal && isUnavailableDependency(error)) holds.push({ ...budget, amount });
        await this.release(holds, journal);
        throw error;
      }
      if (!reservation.ok) {
        await this.release(holds, journal);
        return { ok: false, scope: budget.scope, used: reservation.used, limit: budget.limit };
      }
      holds.push({ ...budget, amount });
    }
    return { ok: true, holds };
  }

  /** Nothing is charged: the reservations go back. */
  async release(holds: readonly BudgetHold[], journal: CounterJournal | null): Promise<void> {
    for (const hold of holds) {
      if (journal) await takeBackChange(this.counters, { key: hold.key, amount: hold.amount, journal }, this.logger);
      else await this.counters.adjust(hold.key, -hold.amount).catch(() => null);
    }
  }

  /**
   * The counters a call of this key may hold credits in: the key's, and its project's for a live key (whether or not
   * a limit is set now: what a call reserved, its journal says).
   */
  countersOf(key: BudgetedKey, month: string): readonly BudgetCounter[] {
    const cacheKey = `${key.keyId}:${month}`;
    const cached = this.counterCache.get(cacheKey);
    if (cached) return cached;
    const counters = this.buildCounters(key, month);
    this.counterCache.set(cacheKey, counters);
    return counters;
  }

  private buildCounters(key: BudgetedKey, month: string): BudgetCounter[] {
    const space = redisKeyspace(this.config);
    const counters: BudgetCounter[] = [
      {
        scope: 'key',
        key: counterKeys.keySpend(space, key.orgId, key.keyId, month),
        seed: () => this.seeds.keyCredits(key.orgId, key.keyId, month),
      },
    ];
    if (key.environment === 'live') {
      counters.push({
        scope: 'project',
        key: counterKeys.projectSpend(space, key.orgId, key.projectId, month),
        seed: () => this.seeds.projectLiveCredits(key.orgId, key.projectId, month),
      });
    }
    return counters;
  }

  private budgetsOf(key: KeyRecord, month: string): Budget[] {
    return this.countersOf(key, month).flatMap((counter) => {
      const limit = counter.scope === 'key' ? key.budgets.key : key.budgets.project;
      return limit === null ? [] : [{ ...counter, limit }];
    });
  }
}
