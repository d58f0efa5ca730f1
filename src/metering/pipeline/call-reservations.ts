import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SpendBudgets, type SpendLimit } from '../budgets/spend-budgets.js';
import { DeferredCharges, type DeferredReservation } from '../deferred/deferred-charges.js';
import { QUOTA_GATE, type QuotaGate } from '../leases/quota-gate.js';
import { MeteringException } from '../metering.errors.js';
import { maximumCredits } from '../pricing.js';
import type { Admitted, MeteredCall } from './metered-call.js';
import { limitReached, usageHeaders } from './pipeline-answers.js';

/** A limit a call did not fit: which one, its credits used and its size. */
interface Refusal {
  readonly limit: SpendLimit;
  readonly used: number;
  readonly size: number;
}

/**
 * The most a call can cost, reserved before its work: from the organization's limit (live keys; a credit lease in
 * services mode), then from its key's and project's budgets. The first limit it does not fit refuses it with the one
 * 402 (`refuse`), what it held elsewhere given back; once it is done, what it did not spend goes back (`release`).
 */
@Injectable()
export class CallReservations {
  constructor(
    @Inject(QUOTA_GATE) private readonly quotas: QuotaGate,
    private readonly budgets: SpendBudgets,
    private readonly deferred: DeferredCharges,
  ) {}

  /** Reserves the call's most credits and sets its charge id (a lease's, when the credits come from one). */
  async reserve(call: MeteredCall, admitted: Admitted): Promise<void> {
    const { quota, caller, month } = admitted;
    const amount = maximumCredits(call.spec.estimate(call.body));
    if (quota.live) {
      const request = {
        key: quota.key,
        orgId: caller.key.orgId,
        month,
        allowance: quota.limit,
        amount,
        seed: quota.seed,
      };
      const admission = await this.quotas.reserve(request);
      if (!admission.ok) {
        const refusal = { limit: 'organization', used: admission.used, size: quota.limit } as const;
        throw this.refuse(admitted, refusal, usageHeaders(quota.limit, admission.used));
      }
      quota.hold = admission.hold;
    }
    admitted.chargeId = quota.hold?.chargeId ?? admitted.claim?.owner.charge ?? randomUUID();
    const { budgets } = caller.key;
    if (budgets.key === null && budgets.project === null) return;
    let admission;
    try {
      admission = await this.budgets.admit(caller.key, month, amount);
    } catch (error) {
      const used = await this.release(admitted).catch(() => ({}));
      throw MeteringException.withHeaders(error, { ...admitted.headers, ...used });
    }
    if (!admission.ok) {
      const used = await this.release(admitted).catch(() => ({}));
      throw this.refuse(admitted, { limit: admission.scope, used: admission.used, size: admission.limit }, used);
    }
    admitted.budgets = admission.holds;
  }

  /**
   * A deferred call's reservation (research tasks): held in the counters under `chargeId` until its run settles or
   * releases it. Returns the organization's live credits used with it (null for a test key).
   */
  async reserveDeferred(
    admitted: Admitted,
    chargeId: string,
    credits: number,
  ): Promise<{ reservation: DeferredReservation; used: number | null }> {
    const { caller, month, quota } = admitted;
    const { orgId, keyId, projectId } = caller.key;
    const reservation = { chargeId, orgId, month, live: quota.live, credits, keyId, projectId };
    const admission = await this.deferred.reserve(reservation, quota.limit, caller.key);
    if (!admission.ok) {
      const orgUsed = admission.limit === 'organization' ? admission.used : null;
      const used = orgUsed ?? (await quota.used().catch(() => null));
      const refusal = { limit: admission.limit, used: admission.used, size: admission.size };
      throw this.refuse(admitted, refusal, used === null ? {} : usageHeaders(quota.limit, used));
    }
    return { reservation, used: quota.live ? admission.used : null };
  }

  /** Gives the reservations back (the organization's and the budgets'); the usage headers after it. */
  async release(admitted: Admitted): Promise<Record<string, string>> {
    const { quota } = admitted;
    if (admitted.budgets.length > 0) {
      const holds = admitted.budgets;
      admitted.budgets = [];
      await this.budgets.releaseLeased(holds);
    }
    const used = (await quota.hold?.release()) ?? (await quota.used());
    quota.hold = null;
    return usageHeaders(quota.limit, used);
  }

  /** The one 402: the limit that bit, its credits used and size, with the call's headers and usage headers. */
  private refuse(admitted: Admitted, refusal: Refusal, usage: Record<string, string>): MeteringException {
    return limitReached({ ...admitted.headers, ...usage }, refusal.limit, refusal.used, refusal.size);
  }
}
