import { Injectable } from '@nestjs/common';
import type { KeyEnvironment, KeyScope } from '../../keys/events/key.events.js';
import { MeteringException } from '../metering.errors.js';
import { noteCallCredits } from '../request-log-context.js';
import { CallAdmission } from './call-admission.js';
import { CallPricing } from './call-pricing.js';
import { CallReservations } from './call-reservations.js';
import { ChargeRecording } from './charge-recording.js';
import { IdempotencyClaims } from './idempotency-claims.js';
import type {
  Admitted,
  Caller,
  DeferredSubmission,
  MeteredCall,
  Priced,
  SubmittedWork,
  WorkOutcome,
} from './metered-call.js';
import { type MeteredResponse, usageHeaders } from './pipeline-answers.js';

export type { Caller, DeferredSubmission, MeteredCall, MeteredResponse, SubmittedWork, WorkOutcome };

/**
 * The one metering pipeline of the data plane, as the steps `execute` names: admit (API key 401, scope and depth
 * 403, rate limit 429: CallAdmission), claim the Idempotency-Key (replay, 409, 422: IdempotencyClaims), reserve the
 * most the call can cost (402: CallReservations), the work, its price (CallPricing), the charge (CreditsCharged,
 * durable before the response) and settling the counters (ChargeRecording). A failure of the work, or of recording
 * the charge, bills nothing and gives the reservation back. Live credits come from this node's credit lease
 * (CreditLeases), so a call that fits it does no network I/O before its work; units counters are journaled per call
 * until the charge is durable, and an idempotent call notes its response before its charge is appended, so that the
 * calls of a node that dies are settled by the others (see InflightCalls): a crash may lose a response, never a
 * charge, and never bills twice.
 */
@Injectable()
export class MeteringPipeline {
  constructor(
    private readonly admission: CallAdmission,
    private readonly claims: IdempotencyClaims,
    private readonly reservations: CallReservations,
    private readonly pricing: CallPricing,
    private readonly recording: ChargeRecording,
  ) {}

  async execute(call: MeteredCall, work: (caller: Caller) => Promise<WorkOutcome>): Promise<MeteredResponse> {
    const admitted = await this.admission.admit(call);
    const replay = await this.claims.claim(call, admitted);
    if (replay) return replay;
    try {
      await this.reservations.reserve(call, admitted);
      const outcome = await this.work(admitted, work);
      const priced = await this.priceOrRelease(call, admitted, outcome);
      await this.recording.charge(admitted, priced);
      noteCallCredits(priced.charge.data.credits);
      return await this.recording.settle(admitted, priced);
    } catch (error) {
      await this.claims.release(admitted);
      throw error;
    }
  }

  /**
   * A call whose work runs after its response, on any node (research tasks): admitted (401, 403, 429) and its
   * Idempotency-Key claimed (a replay answers the first response) like any call; `submit` reserves the most the
   * work can cost (402) and records the work. Nothing is charged here: the work's run settles the reservation into
   * its one CreditsCharged, or gives it back (DeferredCharges).
   */
  async submit(
    call: MeteredCall,
    submit: (submission: DeferredSubmission) => Promise<SubmittedWork>,
  ): Promise<MeteredResponse> {
    const admitted = await this.admission.admit(call);
    const replay = await this.claims.claim(call, admitted);
    if (replay) return replay;
    const { caller, month, quota } = admitted;
    let used: number | null = null;
    try {
      const submitted = await submit({
        caller,
        month,
        reserve: async (chargeId, credits) => {
          const reserved = await this.reservations.reserveDeferred(admitted, chargeId, credits);
          if (reserved.used !== null) used = reserved.used;
          return reserved.reservation;
        },
      });
      used ??= await quota.used();
      const response: MeteredResponse = {
        status: submitted.status,
        body: submitted.body,
        headers: { ...admitted.headers, ...usageHeaders(quota.limit, used) },
      };
      await this.claims.complete(admitted, response);
      return response;
    } catch (error) {
      await this.claims.release(admitted);
      throw MeteringException.withHeaders(error, admitted.headers);
    }
  }

  /** Authentication, the scope when one is named (403), and the rate limit, for free routes (GET /usage). */
  authenticateAndLimit(
    apiKey: string | null,
    scope: KeyScope | null = null,
  ): Promise<{ caller: Caller; headers: Record<string, string> }> {
    return this.admission.authenticateAndLimit(apiKey, scope);
  }

  /** The organization's credits used this month in one environment, as this node knows them. */
  creditsUsed(orgId: string, month: string, environment: KeyEnvironment = 'live'): Promise<number> {
    return this.admission.creditsUsed(orgId, month, environment);
  }

  /** The work; if it fails, the reservation goes back and the error gets the usage headers. */
  private async work(admitted: Admitted, work: (caller: Caller) => Promise<WorkOutcome>): Promise<WorkOutcome> {
    try {
      return await work(admitted.caller);
    } catch (error) {
      const used = await this.reservations.release(admitted);
      throw MeteringException.withHeaders(error, { ...admitted.headers, ...used });
    }
  }

  /**
   * The price; if it cannot be had (counting the units needs Redis), nothing is charged: the reservation goes back,
   * and the error (503 when Redis is out of reach) gets the usage headers.
   */
  private async priceOrRelease(call: MeteredCall, admitted: Admitted, outcome: WorkOutcome): Promise<Priced> {
    try {
      return await this.pricing.price(call, admitted, outcome);
    } catch (error) {
      // Without a reservation (test keys) there is nothing to give back, nor another wait on Redis for the headers.
      const held = admitted.quota.hold !== null || admitted.budgets.length > 0;
      const used = held ? await this.reservations.release(admitted).catch(() => ({})) : {};
      throw MeteringException.withHeaders(error, { ...admitted.headers, ...used });
    }
  }
}
