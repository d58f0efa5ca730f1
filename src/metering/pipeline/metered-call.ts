import type { KeyRecord } from '../../keys/key-record.js';
import type { Seed, SettledChange } from '../counters/credit-counters.js';
import type { DeferredReservation } from '../deferred/deferred-charges.js';
import type { CreditsCharged } from '../events/credits-charged.event.js';
import type { ClaimOwner } from '../idempotency/idempotency.store.js';
import type { BudgetLeaseHold } from '../budgets/spend-budgets.js';
import type { QuotaHold } from '../leases/quota-gate.js';
import type { MeteredOperationSpec, UsageCounts } from '../metered-operation.js';
import type { OrgPlan } from '../org-plans.service.js';
import type { MeteredResponse } from './pipeline-answers.js';

/** A data-plane call as it reaches the pipeline, from a REST route or an MCP tool call. */
export interface MeteredCall {
  readonly spec: MeteredOperationSpec;
  readonly channel: 'rest' | 'mcp';
  readonly apiKey: string | null;
  /** The request body, `api_key` already removed. */
  readonly body: Record<string, unknown>;
  readonly idempotencyKey: string | null;
  /** Identifies the operation for idempotency fingerprints, e.g. `POST /search` or `mcp tools/call search`. */
  readonly route: string;
  readonly requestId: string;
}

/** The authenticated caller, handed to the work. */
export interface Caller {
  readonly key: KeyRecord;
  readonly plan: OrgPlan;
}

/**
 * What a metered route's work returns: its response body, typed by the route's response class less what the
 * pipeline adds (`request_id`, and `usage` on request), and the counts that price it.
 */
export interface WorkOutcome<Response extends object = Record<string, unknown>> {
  readonly body: Omit<Response, 'request_id' | 'usage'>;
  readonly counts: UsageCounts;
}

/** An admitted call whose work runs later (see MeteringPipeline.submit). */
export interface DeferredSubmission {
  readonly caller: Caller;
  readonly month: string;
  /**
   * Reserves `credits` under `chargeId` until the work settles or releases them (DeferredCharges); 402 when they do
   * not fit the allowance.
   */
  reserve(chargeId: string, credits: number): Promise<DeferredReservation>;
}

export interface SubmittedWork {
  readonly status: number;
  readonly body: object;
}

/**
 * A call's quota: its counter, its reservation once made (live keys). Test keys reserve nothing; their usage headers
 * count the organization's test credits this month, so that a test call never shows the live total.
 */
export interface Quota {
  readonly live: boolean;
  readonly key: string;
  readonly limit: number;
  /** Where the environment's total starts from (the read models): live or test credits this month. */
  readonly seed: Seed;
  /** The credits used this month of the caller's environment, as this node knows them. */
  readonly used: () => Promise<number>;
  hold: QuotaHold | null;
}

/** An Idempotency-Key this call holds until it is done. */
export interface Claimed {
  readonly key: string;
  readonly fingerprint: string;
  owner: ClaimOwner;
}

/** An admitted call: who calls, its rate-limit headers, its month and its quota; what it holds as it goes on. */
export interface Admitted {
  readonly caller: Caller;
  readonly headers: Record<string, string>;
  /** When the call arrived (as the request log has it): its charge's time, whose month it is billed to. */
  readonly receivedAt: Date;
  readonly month: string;
  readonly quota: Quota;
  /** The id its charge will have, once its credits are reserved. */
  chargeId: string | null;
  /** What it holds in the budgets of its key and project (charged or given back with the allowance's hold). */
  budgets: readonly BudgetLeaseHold[];
  /** Its Idempotency-Key, claimed (null without one). */
  claim: Claimed | null;
  /** Set when the charge's outcome is unknown: the claim stays until that is settled. */
  keepClaim: boolean;
}

/** What a call is charged, the counters of its units, and its answer. */
export interface Priced {
  readonly charge: CreditsCharged;
  readonly units: SettledChange[];
  readonly response: MeteredResponse;
}
