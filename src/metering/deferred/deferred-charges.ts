import { redisKeyspace } from '../../redis/redis-keyspace.js';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { type Actor, toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore } from '../../event-store/event-store.port.js';
import { counterKeys } from '../counter-keys.js';
import { CounterSeeds } from '../counters/counter-seeds.js';
import { CREDIT_COUNTERS, type CounterJournal, type CreditCounters } from '../counters/credit-counters.js';
import { MemoryCreditCounters } from '../counters/memory-credit-counters.js';
import { takeBackChange } from '../counters/take-back-change.js';
import { isUnavailableDependency } from '../../http/unavailable-dependency.js';
import { QUOTA_GATE, type QuotaGate } from '../leases/quota-gate.js';
import { type CreditsCharged, chargesStream } from '../events/credits-charged.event.js';
import type { KeyRecord } from '../../keys/key-record.js';
import { type BudgetCounter, type SpendLimit, SpendBudgets } from '../budgets/spend-budgets.js';

interface QuotaCounter {
  readonly scope: 'organization';
  readonly key: string;
  readonly seed: BudgetCounter['seed'];
}

/** What a deferred call reserved at submission, as its job keeps it. */
export interface DeferredReservation {
  /** The id its one CreditsCharged will carry (and, in Redis, its reservation's journal entry). */
  readonly chargeId: string;
  readonly orgId: string;
  /** The billing month of the submission: the reservation and the charge count against it. */
  readonly month: string;
  /** Live keys reserve; test keys do not (their usage is not counted against the allowance). */
  readonly live: boolean;
  readonly credits: number;
  /** The key and project it is billed to: the counters of their budgets hold it too, where a limit binds them. */
  readonly keyId: string;
  readonly projectId: string;
}

export type DeferredAdmission =
  | { readonly ok: true; readonly used: number }
  | { readonly ok: false; readonly limit: SpendLimit; readonly used: number; readonly size: number };

/**
 * Credits of calls whose work runs after their response, on any node (research tasks). At submission the most the
 * call can cost is added to the organization's quota counter (402 when it does not fit), where every node's
 * reservations and leases see it; it stays there, durable in the job, until the run ends: `settle` appends the one
 * CreditsCharged (its id fixed at submission; the store keeps one event per id, so a second run bills nothing) and
 * turns the reservation into the actual credits; `release` gives it back (a failed task is not billed).
 *
 * With Redis the reservation is journaled (a hash of its own, not a node's journal: the reservation outlives the
 * node that made it), so that the change applies only while the counter still holds the reservation; a counter
 * Redis lost is seeded again from the ledger, and the charge is then counted as the pipeline counts any lost change.
 * In-process counters (embedded mode) are lost with the process: a reservation made before a restart is gone, and
 * the charge of such a task is added to the counter if the counter exists (else its seed, from the ledger, has it).
 */
@Injectable()
export class DeferredCharges {
  /** Embedded mode: the reservations this process made, by charge id: the counters they are held in. */
  private readonly heldHere = new Map<string, Set<string>>();
  private readonly logger = new Logger('DeferredCharges');

  constructor(
    @Inject(CREDIT_COUNTERS) private readonly counters: CreditCounters,
    private readonly seeds: CounterSeeds,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(QUOTA_GATE) private readonly gate: QuotaGate,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly budgets: SpendBudgets,
  ) {}

  /**
   * Adds the reservation to the quota counter if it fits the allowance (live keys), then to the counters of the
   * key's and project's budgets if it fits them (SpendBudgets); the first it does not fit refuses it, the others given
   * back. `used` is the organization's, and includes it when it fits.
   */
  async reserve(reservation: DeferredReservation, allowance: number, key: KeyRecord): Promise<DeferredAdmission> {
    const { orgId, month, live, credits, chargeId } = reservation;
    const quotaKey = this.quotaKey(orgId, month);
    const seed = () => this.seeds.liveCredits(orgId, month);
    const journal = this.journal(chargeId);
    const held = new Set<string>();
    let used: number;
    if (live) {
      let admission;
      try {
        admission = await this.counters.reserve(quotaKey, credits, allowance, seed, journal);
      } catch (error) {
        // It may have run with its answer lost: the call answers 503, so the reservation is taken back if it is there.
        if (journal && isUnavailableDependency(error)) {
          void takeBackChange(this.counters, { key: quotaKey, amount: credits, journal }, this.logger);
        }
        throw error;
      }
      if (!admission.ok) return { ok: false, limit: 'organization', used: admission.used, size: allowance };
      used = admission.used;
      held.add(quotaKey);
    } else {
      used = await this.counters.read(quotaKey, seed);
    }
    let budgets;
    try {
      budgets = await this.budgets.reserve(key, month, credits, journal);
    } catch (error) {
      if (live) await this.giveBack(quotaKey, credits, journal);
      throw error;
    }
    if (!budgets.ok) {
      if (live) await this.giveBack(quotaKey, credits, journal);
      return { ok: false, limit: budgets.scope, used: budgets.used, size: budgets.limit };
    }
    for (const hold of budgets.holds) held.add(hold.key);
    if (this.inMemory && held.size > 0) this.heldHere.set(chargeId, held);
    if (live) this.gate.observe(quotaKey, used);
    return { ok: true, used };
  }

  /**
   * The charge, then the counter: the reservation becomes the credits charged. The store keeps one event per id (a
   * second append of it changes nothing), so a job run again appends nothing new; `charged` is the job's own note
   * that its charge is durable, written here between the append and the counters: a run that finds it set (an
   * earlier run got that far) changes the counter only while the counter still holds the reservation, and never
   * counts the charge twice.
   */
  async settle(
    reservation: DeferredReservation,
    charge: CreditsCharged,
    actor: Actor,
    charged: { readonly before: boolean; note(): Promise<void> },
  ): Promise<void> {
    if (charge.data.charge_id !== reservation.chargeId) throw new Error('a deferred charge must carry its reserved id');
    const stream = chargesStream(charge.data.org_id, charge.data.billing_month);
    await this.store.appendToStream(stream, [toNewEvent(charge, actor, { id: charge.data.charge_id })], 'any');
    await charged.note();
    const credits = charge.data.credits;
    const { chargeId } = reservation;
    if (this.inMemory) {
      const held = this.heldHere.get(chargeId);
      this.heldHere.delete(chargeId);
      for (const { key } of this.countersOf(reservation)) {
        // Not held here: made before a restart, gone with the counters, which are seeded again from the ledger; or a
        // budget with no limit at submission, whose counter (if loaded) counts the charge as any other.
        if (held?.has(key)) await this.counters.adjust(key, credits - reservation.credits);
        else if (!charged.before) await this.counters.adjust(key, credits);
      }
      return;
    }
    const journal = this.journal(chargeId)!;
    const chargedAt = () => this.seeds.durableChargePosition(chargeId);
    for (const counter of this.countersOf(reservation)) {
      const adjusted = await this.counters.adjust(counter.key, credits - reservation.credits, journal);
      const quota = counter.scope === 'organization';
      if (quota && adjusted !== null) this.gate.observe(counter.key, adjusted);
      // Without its journal entry: settled already (a run again), or, for a budget, never reserved (no limit at
      // submission). The quota counter, reserved for every live task, may instead have been lost by Redis: counted
      // then, unless its seed has the charge (RedisCreditCounters.settle).
      if (adjusted === null && (charged.before || !quota)) continue;
      await this.counters.settle(journal, [{ key: counter.key, amount: credits, seed: counter.seed }], chargedAt);
    }
  }

  /** Nothing is charged: the reservation goes back, from every counter that holds it. */
  async release(reservation: DeferredReservation): Promise<void> {
    const { chargeId, credits } = reservation;
    if (this.inMemory) {
      const held = this.heldHere.get(chargeId);
      this.heldHere.delete(chargeId);
      for (const key of held ?? []) await this.counters.adjust(key, -credits);
      return;
    }
    // With its journal: only while a counter still holds it; the entry goes with it (back at zero).
    for (const counter of this.countersOf(reservation)) {
      const adjusted = await this.counters.adjust(counter.key, -credits, this.journal(chargeId));
      if (counter.scope === 'organization' && adjusted !== null) this.gate.observe(counter.key, adjusted);
    }
  }

  /** Every counter a reservation can be held in: the quota's (live keys), its key's and project's budgets'. */
  private countersOf(reservation: DeferredReservation): readonly (BudgetCounter | QuotaCounter)[] {
    const { orgId, month, keyId, projectId, live } = reservation;
    const budgetCounters = this.budgets.countersOf(
      { orgId, keyId, projectId, environment: live ? 'live' : 'test' },
      month,
    );
    if (!live) return budgetCounters;
    const quota: QuotaCounter = {
      scope: 'organization',
      key: this.quotaKey(orgId, month),
      seed: () => this.seeds.liveCredits(orgId, month),
    };
    return [quota, ...budgetCounters];
  }

  private async giveBack(key: string, amount: number, journal: CounterJournal | null): Promise<void> {
    if (journal) await takeBackChange(this.counters, { key, amount, journal }, this.logger);
    else await this.counters.adjust(key, -amount).catch(() => null);
  }

  private get inMemory(): boolean {
    return this.counters instanceof MemoryCreditCounters;
  }

  private quotaKey(orgId: string, month: string): string {
    return counterKeys.quota(redisKeyspace(this.config), orgId, month);
  }

  private journal(chargeId: string): CounterJournal | null {
    return this.inMemory ? null : { key: `${this.config.redisPrefix}deferred-reservations`, call: chargeId };
  }
}
