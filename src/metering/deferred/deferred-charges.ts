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
}

export type DeferredAdmission =
  { readonly ok: true; readonly used: number } | { readonly ok: false; readonly used: number };

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
  /** Embedded mode: the reservations this process made (the only ones its in-memory counters hold). */
  private readonly heldHere = new Set<string>();
  private readonly logger = new Logger('DeferredCharges');

  constructor(
    @Inject(CREDIT_COUNTERS) private readonly counters: CreditCounters,
    private readonly seeds: CounterSeeds,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(QUOTA_GATE) private readonly gate: QuotaGate,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Adds the reservation to the counter if it fits the allowance; `used` includes it when it does. */
  async reserve(reservation: DeferredReservation, allowance: number): Promise<DeferredAdmission> {
    const { orgId, month, live, credits, chargeId } = reservation;
    const key = this.quotaKey(orgId, month);
    const seed = () => this.seeds.liveCredits(orgId, month);
    if (!live) return { ok: true, used: await this.counters.read(key, seed) };
    const journal = this.journal(chargeId);
    let admission: DeferredAdmission;
    try {
      admission = await this.counters.reserve(key, credits, allowance, seed, journal);
    } catch (error) {
      // It may have run with its answer lost: the call answers 503, so the reservation is taken back if it is there.
      if (journal && isUnavailableDependency(error)) {
        void takeBackChange(this.counters, { key, amount: credits, journal }, this.logger);
      }
      throw error;
    }
    if (admission.ok && this.inMemory) this.heldHere.add(chargeId);
    if (admission.ok) this.gate.observe(key, admission.used);
    return admission;
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
    if (!reservation.live) return;
    const credits = charge.data.credits;
    const { orgId, month, chargeId } = reservation;
    const key = this.quotaKey(orgId, month);
    const seed = () => this.seeds.liveCredits(orgId, month);
    if (this.inMemory) {
      const held = this.heldHere.delete(chargeId);
      // Not held here: made before a restart, gone with the counters, which are seeded again from the ledger.
      if (held) await this.counters.adjust(key, credits - reservation.credits);
      else if (!charged.before) await this.counters.adjust(key, credits);
      return;
    }
    const journal = this.journal(chargeId)!;
    const adjusted = await this.counters.adjust(key, credits - reservation.credits, journal);
    if (adjusted !== null) this.gate.observe(key, adjusted);
    if (charged.before && adjusted === null) return;
    await this.counters.settle(journal, [{ key, amount: credits, seed }], () =>
      this.seeds.durableChargePosition(chargeId),
    );
  }

  /** Nothing is charged: the reservation goes back. */
  async release(reservation: DeferredReservation): Promise<void> {
    if (!reservation.live) return;
    const key = this.quotaKey(reservation.orgId, reservation.month);
    if (this.inMemory) {
      if (this.heldHere.delete(reservation.chargeId)) await this.counters.adjust(key, -reservation.credits);
      return;
    }
    // With its journal: only while the counter still holds it; the entry goes with it (back at zero).
    const adjusted = await this.counters.adjust(key, -reservation.credits, this.journal(reservation.chargeId));
    if (adjusted !== null) this.gate.observe(key, adjusted);
  }

  private get inMemory(): boolean {
    return this.counters instanceof MemoryCreditCounters;
  }

  private quotaKey(orgId: string, month: string): string {
    return counterKeys.quota(this.config.redisPrefix, orgId, month);
  }

  private journal(chargeId: string): CounterJournal | null {
    return this.inMemory ? null : { key: `${this.config.redisPrefix}deferred-reservations`, call: chargeId };
  }
}
