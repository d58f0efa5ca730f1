import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Position } from '../../event-store/event-store.port.js';
import { isUnavailableDependency } from '../../http/unavailable-dependency.js';
import { ChargeWriter } from '../charge-writer.js';
import { CounterSeeds } from '../counters/counter-seeds.js';
import { CREDIT_COUNTERS, type CreditCounters, seedValueOf } from '../counters/credit-counters.js';
import { takeBackChange } from '../counters/take-back-change.js';
import { InflightCalls } from '../inflight-calls.js';
import { MESSAGES, MeteringException } from '../metering.errors.js';
import { settleUnknownCharge } from '../unknown-charge.js';
import { CallReservations } from './call-reservations.js';
import { IdempotencyClaims } from './idempotency-claims.js';
import type { Admitted, Priced, Quota } from './metered-call.js';
import { type MeteredResponse, usageHeaders } from './pipeline-answers.js';

/**
 * A priced call's charge: appended durably before the answer (`charge`), then counted (`settle`): the counters and
 * the reservations become the charge's credits, the usage headers say what was used with it, and the Idempotency-Key
 * keeps the answer. Not recorded: 503, nothing billed, everything given back. Outcome unknown (the store went away
 * during the append): 503, and everything is held until the ledger can say (settleUnknownCharge).
 */
@Injectable()
export class ChargeRecording {
  private readonly logger = new Logger('Metering');

  constructor(
    private readonly charges: ChargeWriter,
    @Inject(CREDIT_COUNTERS) private readonly counters: CreditCounters,
    private readonly seeds: CounterSeeds,
    private readonly inflight: InflightCalls,
    private readonly claims: IdempotencyClaims,
    private readonly reservations: CallReservations,
  ) {}

  async charge(admitted: Admitted, priced: Priced): Promise<void> {
    const { claim, caller } = admitted;
    const journal = this.inflight.journal(priced.charge.data.charge_id);
    let appending = false;
    try {
      if (claim) await this.claims.prepare(claim, priced.charge.data.charge_id, priced.response);
      appending = true;
      await this.charges.append(priced.charge, { type: 'api_key', id: caller.key.keyId }, admitted.receivedAt);
    } catch (error) {
      const headers = { ...admitted.headers };
      if (appending && isUnavailableDependency(error)) {
        this.logger.error(`a charge's outcome is unknown, settled once the store answers: ${(error as Error).message}`);
        const { charge_id: chargeId, credits } = priced.charge.data;
        const idempotency = claim ? { ...claim, response: priced.response } : null;
        const deps = {
          counters: this.counters,
          idempotency: this.claims.store,
          chargePosition: (id: string) => this.seeds.chargePosition(id),
          logger: this.logger,
        };
        const holds = [admitted.quota.hold, ...admitted.budgets.map((budget) => budget.hold)].filter((h) => h !== null);
        admitted.budgets = [];
        settleUnknownCharge(deps, { chargeId, journal, credits, holds, changes: priced.units, idempotency });
        admitted.keepClaim = true;
        throw MeteringException.of(503, MESSAGES.chargeUnknown, headers);
      }
      this.logger.error(`recording a charge failed, the call is not served: ${(error as Error).message}`);
      for (const unit of priced.units) {
        if (journal) await takeBackChange(this.counters, { ...unit, journal }, this.logger);
        else await this.counters.adjust(unit.key, -unit.amount, null).catch(() => null);
      }
      const used = await this.reservations.release(admitted).catch(() => ({}));
      throw MeteringException.of(503, MESSAGES.chargeFailed, { ...headers, ...used });
    }
  }

  /** Durable: the counters count the charge (then the answer carries them), the Idempotency-Key keeps the answer. */
  async settle(admitted: Admitted, priced: Priced): Promise<MeteredResponse> {
    const { charge_id: chargeId, credits } = priced.charge.data;
    const chargedAt = () => this.seeds.durableChargePosition(chargeId);
    // Units: not awaited (if it fails, the sweep after this node stops does it).
    void this.counters
      .settle(this.inflight.journal(chargeId), priced.units, chargedAt)
      .catch((error: unknown) => this.logger.warn(`settling the counters failed: ${(error as Error).message}`));
    const { quota } = admitted;
    await this.chargeBudgets(admitted, credits, chargedAt);
    const response = {
      ...priced.response,
      headers: {
        ...priced.response.headers,
        ...usageHeaders(quota.limit, await this.usedAfterCharge(quota, credits, chargedAt)),
      },
    };
    // The response was stored before the append (prepare), so a retry replays it even if this step fails.
    await this.claims.complete(admitted, response);
    return response;
  }

  /** The budgets' holds become the charge's credits (settled in the background with a lease's others). */
  private async chargeBudgets(
    admitted: Admitted,
    credits: number,
    chargedAt: () => Promise<Position | null>,
  ): Promise<void> {
    const holds = admitted.budgets;
    admitted.budgets = [];
    for (const { hold } of holds) {
      await hold
        .charged(credits, chargedAt)
        .catch((error: unknown) => this.logger.warn(`settling a budget failed: ${(error as Error).message}`));
    }
  }

  /**
   * The credits used once this charge counts. The charge is durable: the call is answered 200 whatever Redis does
   * now (the counters catch up from the ledger), so a Redis failure here falls back to the read models.
   */
  private async usedAfterCharge(
    quota: Quota,
    credits: number,
    chargedAt: () => Promise<Position | null>,
  ): Promise<number> {
    try {
      return quota.hold ? await quota.hold.charged(credits, chargedAt) : await quota.used();
    } catch (error) {
      this.logger.warn(`reading the credits used after a durable charge failed: ${(error as Error).message}`);
      const seeded = await quota.seed().catch(() => null);
      const fromReadModels = seeded === null ? 0 : seedValueOf(seeded).value;
      return Math.max(fromReadModels, quota.hold?.used ?? 0);
    }
  }
}
