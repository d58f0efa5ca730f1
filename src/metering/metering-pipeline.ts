import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { REDIS_STALL_WATCH } from '../redis/redis.module.js';
import type { RedisStallWatch } from '../redis/redis-stall-watch.js';
import { takeBackChange } from './counters/take-back-change.js';
import { retryWhileUnavailable } from './retry-while-unavailable.js';
import { isUnavailableDependency } from '../http/unavailable-dependency.js';
import { parseApiKey } from '../keys/api-key-secret.js';
import { KeyLookupService } from '../keys/key-lookup.service.js';
import type { KeyEnvironment, KeyScope } from '../keys/events/key.events.js';
import type { KeyRecord } from '../keys/key-record.js';
import { ChargeWriter } from './charge-writer.js';
import { billingMonth, counterKeys } from './counter-keys.js';
import { CounterSeeds } from './counters/counter-seeds.js';
import { DeferredCharges, type DeferredReservation } from './deferred/deferred-charges.js';
import {
  CREDIT_COUNTERS,
  type CreditCounters,
  type Seed,
  type SettledChange,
  seedValueOf,
} from './counters/credit-counters.js';
import type { Position } from '../event-store/event-store.port.js';
import type { CreditsCharged, PriceItem } from './events/credits-charged.event.js';
import { type ClaimOwner, IDEMPOTENCY_STORE, type IdempotencyStore } from './idempotency/idempotency.store.js';
import { requestFingerprint } from './idempotency/request-fingerprint.js';
import { InflightCalls } from './inflight-calls.js';
import { QUOTA_GATE, type QuotaGate, type QuotaHold } from './leases/quota-gate.js';
import { RateLeases } from './leases/rate-leases.js';
import type { MeteredOperationSpec, UsageCounts } from './metered-operation.js';
import { MESSAGES, MeteringException } from './metering.errors.js';
import { type OrgPlan, OrgPlansService } from './org-plans.service.js';
import { creditsForUnits, maximumCredits } from './pricing.js';
import { settleUnknownCharge } from './unknown-charge.js';
import {
  type MeteredResponse,
  limitReached,
  missingScope,
  rateLimitHeaders,
  rateLimited,
  replayOf,
  usageHeaders,
} from './pipeline-answers.js';
import { type BudgetLeaseHold, SpendBudgets } from './budgets/spend-budgets.js';
import { callReceivedAt, noteCallCredits, noteCallKey } from './request-log-context.js';

export type { MeteredResponse };

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

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * A call's quota: its counter, its reservation once made (live keys). Test keys reserve nothing; their usage headers
 * count the organization's test credits this month, so that a test call never shows the live total.
 */
interface Quota {
  readonly live: boolean;
  readonly key: string;
  readonly limit: number;
  /** Where the environment's total starts from (the read models): live or test credits this month. */
  readonly seed: Seed;
  /** The credits used this month of the caller's environment, as this node knows them. */
  readonly used: () => Promise<number>;
  hold: QuotaHold | null;
}

/** What a call is charged, the counters of its units, and its answer. */
interface Priced {
  readonly charge: CreditsCharged;
  readonly units: SettledChange[];
  readonly response: MeteredResponse;
}

/** An admitted call: who calls, its rate-limit headers, its month and (live keys) its quota. */
interface Admitted {
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

interface Claimed {
  readonly key: string;
  readonly fingerprint: string;
  owner: ClaimOwner;
}

/**
 * The one metering pipeline of the data plane, as the steps `execute` names: admit (API key 401, scope and depth
 * 403, rate limit 429), claim the Idempotency-Key (replay, 409, 422), reserve the most the call can cost (402), the
 * work, its price, the charge (CreditsCharged, durable before the response), and settling the counters. A failure
 * of the work, or of recording the charge, bills nothing and gives the reservation back. Live credits come from
 * this node's credit lease (CreditLeases), so a call that fits it does no network I/O before its work; units
 * counters are journaled per call until the charge is durable, and an idempotent call notes its response before
 * its charge is appended, so that the calls of a node that dies are settled by the others (see InflightCalls): a
 * crash may lose a response, never a charge, and never bills twice.
 */
@Injectable()
export class MeteringPipeline {
  private readonly logger = new Logger('Metering');

  constructor(
    private readonly keys: KeyLookupService,
    private readonly plans: OrgPlansService,
    private readonly rateLimits: RateLeases,
    private readonly seeds: CounterSeeds,
    private readonly charges: ChargeWriter,
    @Inject(CREDIT_COUNTERS) private readonly counters: CreditCounters,
    @Inject(QUOTA_GATE) private readonly quotas: QuotaGate,
    @Inject(IDEMPOTENCY_STORE) private readonly idempotency: IdempotencyStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly inflight: InflightCalls,
    private readonly deferred: DeferredCharges,
    @Inject(REDIS_STALL_WATCH) private readonly redisStall: RedisStallWatch | null,
    private readonly budgets: SpendBudgets,
  ) {}

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
    const admitted = await this.admit(call);
    const replay = await this.claim(call, admitted);
    if (replay) return replay;
    const { caller, month, quota } = admitted;
    let used: number | null = null;
    try {
      const submitted = await submit({
        caller,
        month,
        reserve: async (chargeId, credits) => {
          const { orgId, keyId, projectId } = caller.key;
          const reservation = { chargeId, orgId, month, live: quota.live, credits, keyId, projectId };
          const admission = await this.deferred.reserve(reservation, quota.limit, caller.key);
          if (!admission.ok) {
            const orgUsed = admission.limit === 'organization' ? admission.used : null;
            const used = orgUsed ?? (await quota.used().catch(() => null));
            const headers = { ...admitted.headers, ...(used === null ? {} : usageHeaders(quota.limit, used)) };
            throw limitReached(headers, admission.limit, admission.used, admission.size);
          }
          if (quota.live) used = admission.used;
          return reservation;
        },
      });
      used ??= await quota.used();
      const response: MeteredResponse = {
        status: submitted.status,
        body: submitted.body,
        headers: { ...admitted.headers, ...usageHeaders(quota.limit, used) },
      };
      if (admitted.claim) {
        const { key, fingerprint } = admitted.claim;
        await this.idempotency
          .complete(key, fingerprint, response)
          .catch((error: unknown) =>
            this.logger.warn(`completing an Idempotency-Key failed: ${(error as Error).message}`),
          );
      }
      return response;
    } catch (error) {
      if (admitted.claim) await this.idempotency.release(admitted.claim.key).catch(() => {});
      throw MeteringException.withHeaders(error, admitted.headers);
    }
  }

  async execute(call: MeteredCall, work: (caller: Caller) => Promise<WorkOutcome>): Promise<MeteredResponse> {
    const admitted = await this.admit(call);
    const replay = await this.claim(call, admitted);
    if (replay) return replay;
    try {
      await this.reserve(call, admitted);
      const outcome = await this.work(admitted, work);
      const priced = await this.priceOrRelease(call, admitted, outcome);
      await this.charge(admitted, priced);
      noteCallCredits(priced.charge.data.credits);
      return await this.settle(admitted, priced);
    } catch (error) {
      if (admitted.claim && !admitted.keepClaim) await this.idempotency.release(admitted.claim.key).catch(() => {});
      throw error;
    }
  }

  /** The key (401), its scope and depth (403), the rate limit (429). */
  private async admit(call: MeteredCall): Promise<Admitted> {
    // A Redis that stopped answering would hold this call's first command: 503 before anything is sent.
    this.redisStall?.assertAnswering();
    const caller = await this.authenticate(call.apiKey);
    this.authorize(caller.key, call.spec, call.body);
    const { headers } = await this.rateLimit(caller);
    const receivedAt = callReceivedAt() ?? new Date();
    const month = billingMonth(receivedAt);
    const quota = this.quotaOf(caller, month);
    return { caller, headers, receivedAt, month, quota, chargeId: null, budgets: [], claim: null, keepClaim: false };
  }

  private quotaOf(caller: Caller, month: string): Quota {
    const { orgId, environment } = caller.key;
    const key = counterKeys.quota(this.config.redisPrefix, orgId, month);
    const limit = caller.plan.monthlyCreditLimit;
    if (environment === 'live') {
      const seed = () => this.seeds.liveCredits(orgId, month);
      return { live: true, key, limit, seed, used: () => this.quotas.usedNow(key, seed), hold: null };
    }
    // No counter counts test credits: the read models do, once they include every charge stored (this call's too).
    const seed = () => this.seeds.testCredits(orgId, month);
    return { live: false, key, limit, seed, used: async () => (await seed()).value, hold: null };
  }

  /** The Idempotency-Key: a replay answers at once; otherwise the key is this call's until it is done. */
  private async claim(call: MeteredCall, admitted: Admitted): Promise<MeteredResponse | null> {
    if (!call.idempotencyKey) return null;
    const claimed = await this.claimIdempotency(call, admitted.caller, admitted.headers, randomUUID());
    if ('replay' in claimed) return claimed.replay;
    admitted.claim = claimed;
    return null;
  }

  /** The most the call can cost, from the allowance (live keys), then from the key's and project's budgets (402). */
  private async reserve(call: MeteredCall, admitted: Admitted): Promise<void> {
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
        const headers = { ...admitted.headers, ...usageHeaders(quota.limit, admission.used) };
        throw limitReached(headers, 'organization', admission.used, quota.limit);
      }
      quota.hold = admission.hold;
    }
    const chargeId = quota.hold?.chargeId ?? admitted.claim?.owner.charge ?? randomUUID();
    admitted.chargeId = chargeId;
    const { budgets } = caller.key;
    if (budgets.key === null && budgets.project === null) return;
    let admission;
    try {
      admission = await this.budgets.admit(caller.key, month, amount);
    } catch (error) {
      const used = await this.releaseQuota(admitted).catch(() => ({}));
      throw MeteringException.withHeaders(error, { ...admitted.headers, ...used });
    }
    if (!admission.ok) {
      const used = await this.releaseQuota(admitted).catch(() => ({}));
      throw limitReached({ ...admitted.headers, ...used }, admission.scope, admission.used, admission.limit);
    }
    admitted.budgets = admission.holds;
  }

  /** The work; if it fails, the reservation goes back and the error gets the usage headers. */
  private async work(admitted: Admitted, work: (caller: Caller) => Promise<WorkOutcome>): Promise<WorkOutcome> {
    try {
      return await work(admitted.caller);
    } catch (error) {
      const used = await this.releaseQuota(admitted);
      throw MeteringException.withHeaders(error, { ...admitted.headers, ...used });
    }
  }

  /**
   * The price; if it cannot be had (counting the units needs Redis), nothing is charged: the reservation goes back,
   * and the error (503 when Redis is out of reach) gets the usage headers.
   */
  private async priceOrRelease(call: MeteredCall, admitted: Admitted, outcome: WorkOutcome): Promise<Priced> {
    try {
      return await this.price(call, admitted, outcome);
    } catch (error) {
      // Without a reservation (test keys) there is nothing to give back, nor another wait on Redis for the headers.
      const held = admitted.quota.hold !== null || admitted.budgets.length > 0;
      const used = held ? await this.releaseQuota(admitted).catch(() => ({})) : {};
      throw MeteringException.withHeaders(error, { ...admitted.headers, ...used });
    }
  }

  /** What the call costs (volume prices count its units first), its CreditsCharged and its answer. */
  private async price(call: MeteredCall, admitted: Admitted, outcome: WorkOutcome): Promise<Priced> {
    const { caller, month, quota } = admitted;
    const chargeId = admitted.chargeId ?? randomUUID();
    const price = call.spec.price(call.body, outcome.counts);
    const items: PriceItem[] = [...price.items];
    const units: SettledChange[] = [];
    if (price.units) {
      let unitCredits = 0;
      const { count, price_class: priceClass } = price.units;
      if (count > 0) {
        const { orgId, environment } = caller.key;
        const key = counterKeys.units(this.config.redisPrefix, orgId, month, environment, priceClass);
        const seed = () => this.seeds.units(orgId, month, environment, priceClass);
        const journal = this.inflight.journal(chargeId);
        let total: number;
        try {
          total = await this.counters.increment(key, count, seed, journal);
        } catch (error) {
          // It may have run with its answer lost: the call goes unbilled, so what it counted is taken back.
          if (journal) void takeBackChange(this.counters, { key, amount: count, journal }, this.logger);
          throw error;
        }
        unitCredits = creditsForUnits(price.units, total);
        units.push({ key, amount: count, seed });
      }
      items.push({ item: priceClass, credits: unitCredits });
    }
    const credits = items.reduce((sum, item) => sum + item.credits, 0);
    const budgetLeases = admitted.budgets.flatMap(({ hold }) => (hold.leaseId === null ? [] : [hold.leaseId]));
    const charge: CreditsCharged = {
      type: 'CreditsCharged',
      data: {
        charge_id: chargeId,
        org_id: caller.key.orgId,
        project_id: caller.key.projectId,
        key_id: caller.key.keyId,
        key_environment: caller.key.environment,
        operation: call.spec.operation,
        channel: call.channel,
        depth: call.spec.depth(call.body),
        credits,
        request_id: call.requestId,
        idempotency_key: call.idempotencyKey,
        billing_month: month,
        counts: outcome.counts,
        pricing: { items, units: price.units },
        ...(budgetLeases.length > 0 ? { budget_leases: budgetLeases } : {}),
      },
    };
    const body: Record<string, unknown> = { ...outcome.body };
    body.request_id ??= call.requestId;
    if (call.body.include_usage === true) body.usage = { credits, breakdown: items };
    const headers = { ...admitted.headers, ...(quota.hold ? usageHeaders(quota.limit, quota.hold.used) : {}) };
    return { charge, units, response: { status: 200, body, headers } };
  }

  /**
   * The charge, durable before the answer (an idempotent call notes its answer first, for a retry to replay should
   * this node die). Not recorded: 503, nothing billed, everything given back. Outcome unknown (the store went away
   * during the append): 503, and everything is held until the ledger can say (settleUnknownCharge).
   */
  private async charge(admitted: Admitted, priced: Priced): Promise<void> {
    const { claim, caller } = admitted;
    const journal = this.inflight.journal(priced.charge.data.charge_id);
    let appending = false;
    try {
      if (claim) {
        claim.owner = { ...claim.owner, charge: priced.charge.data.charge_id };
        await this.idempotency.prepare(claim.key, claim.fingerprint, claim.owner, priced.response);
      }
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
          idempotency: this.idempotency,
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
      const used = await this.releaseQuota(admitted).catch(() => ({}));
      throw MeteringException.of(503, MESSAGES.chargeFailed, { ...headers, ...used });
    }
  }

  /** Durable: the counters count the charge (then the answer carries them), the Idempotency-Key keeps the answer. */
  private async settle(admitted: Admitted, priced: Priced): Promise<MeteredResponse> {
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
    if (admitted.claim) {
      // The response was stored before the append (prepare), so a retry replays it even if this step fails.
      const { key, fingerprint } = admitted.claim;
      await this.idempotency
        .complete(key, fingerprint, response)
        .catch((error: unknown) =>
          this.logger.warn(`completing an Idempotency-Key failed: ${(error as Error).message}`),
        );
    }
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

  /** Gives the reservations back (the allowance's and the budgets'); the usage headers after it. */
  private async releaseQuota(admitted: Admitted): Promise<Record<string, string>> {
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

  /**
   * The organization's credits used this month in one environment, as this node knows them (usage headers, GET
   * /usage): live from the quota counter, test from the read models.
   */
  creditsUsed(orgId: string, month: string, environment: KeyEnvironment = 'live'): Promise<number> {
    if (environment === 'test') return this.seeds.testCredits(orgId, month).then((seeded) => seeded.value);
    return this.quotas.usedNow(counterKeys.quota(this.config.redisPrefix, orgId, month), () =>
      this.seeds.liveCredits(orgId, month),
    );
  }

  /** Authentication, the scope when one is named (403), and the rate limit, for free routes (GET /usage). */
  async authenticateAndLimit(
    apiKey: string | null,
    scope: KeyScope | null = null,
  ): Promise<{ caller: Caller; headers: Record<string, string> }> {
    const caller = await this.authenticate(apiKey);
    if (scope && !caller.key.scopes.includes(scope)) throw missingScope(scope);
    const { headers } = await this.rateLimit(caller);
    return { caller, headers };
  }

  private async authenticate(apiKey: string | null): Promise<Caller> {
    if (!apiKey || !parseApiKey(apiKey)) throw MeteringException.of(401, MESSAGES.invalidKey, {});
    const key = await this.keys.lookup(apiKey);
    if (!key) throw MeteringException.of(401, MESSAGES.invalidKey, {});
    noteCallKey(key);
    if (key.status !== 'active') throw MeteringException.of(401, MESSAGES.revokedKey, {});
    const plan = await this.plans.get(key.orgId);
    if (!plan) throw MeteringException.of(401, MESSAGES.invalidKey, {});
    return { key, plan };
  }

  private authorize(key: KeyRecord, spec: MeteredOperationSpec, body: Record<string, unknown>): void {
    if (!key.scopes.includes(spec.scope)) throw missingScope(spec.scope);
    const field = spec.operation === 'search' ? 'search_depth' : 'extract_depth';
    if (key.depthLimit === 'basic' && body[field] === 'advanced') {
      throw MeteringException.of(
        403,
        `Forbidden: this API key is limited to basic depth; ${field} 'advanced' is not permitted.`,
        {},
      );
    }
  }

  private async rateLimit(caller: Caller): Promise<{ headers: Record<string, string> }> {
    const limit = caller.plan.rateLimitPerMinute[caller.key.environment];
    const decision = await this.rateLimits.admit(caller.key.keyId, limit);
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      const month = billingMonth(new Date());
      const used = await this.creditsUsed(caller.key.orgId, month, caller.key.environment);
      throw rateLimited(caller.plan.monthlyCreditLimit, decision, used);
    }
    return { headers };
  }

  private async claimIdempotency(
    call: MeteredCall,
    caller: Caller,
    headers: Record<string, string>,
    chargeId: string,
  ): Promise<{ key: string; fingerprint: string; owner: ClaimOwner } | { replay: MeteredResponse }> {
    const given = call.idempotencyKey!;
    if (!IDEMPOTENCY_KEY.test(given)) {
      throw MeteringException.of(400, 'Idempotency-Key must be 1 to 255 printable ASCII characters.', headers);
    }
    const key = `${this.config.redisPrefix}idempotency:${caller.key.orgId}:${given}`;
    const fingerprint = requestFingerprint('POST', call.route, call.body);
    const owner: ClaimOwner = { node: this.inflight.nodeId, charge: chargeId };
    for (;;) {
      const claim = await this.idempotency.claim(key, fingerprint, owner).catch((error: unknown) => {
        // It may have been made, its answer lost: left alone, a retry would meet "in progress" until it expires.
        if (isUnavailableDependency(error)) {
          void retryWhileUnavailable(
            () => this.idempotency.abandon(key, fingerprint, owner),
            'abandoning an Idempotency-Key claim',
            this.logger,
          );
        }
        throw error;
      });
      switch (claim.state) {
        case 'claimed':
          return { key, fingerprint, owner };
        case 'done':
          return { replay: replayOf(claim.response) };
        case 'mismatch':
          throw MeteringException.of(422, MESSAGES.idempotencyMismatch, headers);
        case 'running': {
          const { node, charge, pending } = claim.record;
          if (!node || !charge || (await this.inflight.isAlive(node))) {
            throw MeteringException.of(409, MESSAGES.idempotencyRunning, headers);
          }
          // Its node died. Charged: the response was lost after the charge, replay it. Not charged: take it over.
          if (pending && (await this.inflight.isCharged(charge))) {
            await this.idempotency.complete(key, fingerprint, pending);
            return { replay: replayOf(pending) };
          }
          if (await this.idempotency.takeOver(key, claim.raw, fingerprint, owner)) return { key, fingerprint, owner };
          // Another retry came first: look again.
        }
      }
    }
  }
}
