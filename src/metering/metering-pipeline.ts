import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { isUnavailableDependency } from '../http/unavailable-dependency.js';
import { parseApiKey } from '../keys/api-key-secret.js';
import { KeyLookupService } from '../keys/key-lookup.service.js';
import type { KeyRecord } from '../keys/key-record.js';
import { ChargeWriter } from './charge-writer.js';
import { billingMonth, counterKeys } from './counter-keys.js';
import { CounterSeeds } from './counters/counter-seeds.js';
import {
  CREDIT_COUNTERS,
  type CounterJournal,
  type CreditCounters,
  type Reservation,
  type Seed,
  type SettledChange,
} from './counters/credit-counters.js';
import type { CreditsCharged, PriceItem } from './events/credits-charged.event.js';
import {
  type ClaimOwner,
  IDEMPOTENCY_STORE,
  type IdempotencyStore,
  type StoredResponse,
} from './idempotency/idempotency.store.js';
import { requestFingerprint } from './idempotency/request-fingerprint.js';
import { InflightCalls } from './inflight-calls.js';
import type { MeteredOperationSpec, UsageCounts } from './metered-operation.js';
import { MESSAGES, MeteringException } from './metering.errors.js';
import { type OrgPlan, OrgPlansService } from './org-plans.service.js';
import { creditsForUnits, maximumCredits } from './pricing.js';
import { type RateLimitDecision, RateLimiterService } from './rate-limiter.service.js';
import { settleUnknownCharge } from './unknown-charge.js';

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

export interface WorkOutcome {
  readonly body: Record<string, unknown>;
  readonly counts: UsageCounts;
}

export type MeteredResponse = StoredResponse & { readonly headers: Record<string, string> };

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The one metering pipeline of the data plane. In order: API key (401), scope and depth (403), rate limit (429),
 * idempotency (replay, 409, 422), quota reservation of the most the call can cost (402), the work, the actual price,
 * settlement, and the CreditsCharged event, durable before the response. A failure of the work, or of recording
 * the charge, bills nothing and gives the reservation back. Every counter change is journaled per node until the
 * charge is durable, and an idempotent call notes its response before its charge is appended, so that the calls of
 * a node that dies are settled by the others (see InflightCalls): a crash may lose a response, never a charge, and
 * never bills twice.
 */
@Injectable()
export class MeteringPipeline {
  private readonly logger = new Logger('Metering');

  constructor(
    private readonly keys: KeyLookupService,
    private readonly plans: OrgPlansService,
    private readonly rateLimiter: RateLimiterService,
    private readonly seeds: CounterSeeds,
    private readonly charges: ChargeWriter,
    @Inject(CREDIT_COUNTERS) private readonly counters: CreditCounters,
    @Inject(IDEMPOTENCY_STORE) private readonly idempotency: IdempotencyStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly inflight: InflightCalls,
  ) {}

  async execute(call: MeteredCall, work: (caller: Caller) => Promise<WorkOutcome>): Promise<MeteredResponse> {
    const caller = await this.authenticate(call.apiKey);
    this.authorize(caller.key, call.spec, call.body);
    const month = billingMonth(new Date());
    const quotaKey = counterKeys.quota(this.config.redisPrefix, caller.key.orgId, month);
    const limit = caller.plan.monthlyCreditAllowance;
    const live = caller.key.environment === 'live';
    const seedCredits = () => this.seeds.liveCredits(caller.key.orgId, month);
    const creditHeaders = (used: number) => usageHeaders(limit, used);
    const chargeId = randomUUID();
    const journal = this.inflight.journal(chargeId);
    // A live call without an Idempotency-Key goes from the rate limit straight to the reservation: where the counters
    // can (Redis), one atomic step does both, one round trip instead of two. Otherwise they are two steps.
    const admitted =
      live && !call.idempotencyKey
        ? await this.rateLimitAndReserve(call, caller, quotaKey, seedCredits, journal)
        : null;
    const { headers: rateHeaders } = admitted ?? (await this.rateLimit(caller));

    const idempotency = call.idempotencyKey ? await this.claimIdempotency(call, caller, rateHeaders, chargeId) : null;
    if (idempotency && 'replay' in idempotency) return idempotency.replay;
    /** Set when the call's charge outcome is unknown: its Idempotency-Key stays claimed until that is settled. */
    let claimKept = false;
    try {
      const estimate = admitted?.estimate ?? maximumCredits(call.spec.estimate(call.body));
      let reserved = 0;
      let usedAfterReservation = 0;
      if (live) {
        const reservation =
          admitted?.reservation ?? (await this.counters.reserve(quotaKey, estimate, limit, seedCredits, journal));
        if (!reservation.ok) {
          throw MeteringException.of(
            402,
            MESSAGES.quotaExhausted,
            { ...rateHeaders, ...creditHeaders(reservation.used) },
            {
              credits_used: reservation.used,
              credits_limit: limit,
            },
          );
        }
        reserved = estimate;
        usedAfterReservation = reservation.used;
      }

      let outcome: WorkOutcome;
      try {
        outcome = await work(caller);
      } catch (error) {
        const used = live ? await this.counters.adjust(quotaKey, -reserved, journal) : null;
        throw MeteringException.withHeaders(error, {
          ...rateHeaders,
          ...creditHeaders(used ?? (await this.counters.read(quotaKey, seedCredits))),
        });
      }

      const price = call.spec.price(call.body, outcome.counts);
      const items: PriceItem[] = [...price.items];
      let unitsKey: string | null = null;
      let seedUnits: Seed | null = null;
      if (price.units) {
        let unitCredits = 0;
        if (price.units.count > 0) {
          const units = price.units;
          unitsKey = counterKeys.units(
            this.config.redisPrefix,
            caller.key.orgId,
            month,
            caller.key.environment,
            units.price_class,
          );
          seedUnits = () => this.seeds.units(caller.key.orgId, month, caller.key.environment, units.price_class);
          const total = await this.counters.increment(unitsKey, units.count, seedUnits, journal);
          unitCredits = creditsForUnits(units, total);
        }
        items.push({ item: price.units.price_class, credits: unitCredits });
      }
      const credits = items.reduce((sum, item) => sum + item.credits, 0);
      // Most calls cost exactly what was reserved: then there is nothing to settle, and no round trip to Redis.
      const settled = !live
        ? null
        : credits === reserved
          ? usedAfterReservation
          : await this.counters.adjust(quotaKey, credits - reserved, journal);
      const used = settled ?? (await this.counters.read(quotaKey, seedCredits));

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
        },
      };
      const body: Record<string, unknown> = { ...outcome.body };
      body.request_id ??= call.requestId;
      if (call.body.include_usage === true) body.usage = { credits, breakdown: items };
      const response: MeteredResponse = { status: 200, body, headers: { ...rateHeaders, ...creditHeaders(used) } };

      // What the charge adds to each counter once durable (the counters hold it already, unless Redis lost them).
      const changes: SettledChange[] = [
        ...(live ? [{ key: quotaKey, amount: credits, seed: seedCredits }] : []),
        ...(unitsKey && seedUnits && price.units
          ? [{ key: unitsKey, amount: price.units.count, seed: seedUnits }]
          : []),
      ];
      let appending = false;
      try {
        // What a retry replays if this node dies once the charge is durable but before `complete`.
        if (idempotency) {
          await this.idempotency.prepare(idempotency.key, idempotency.fingerprint, idempotency.owner, response);
        }
        appending = true;
        await this.charges.append(charge, { type: 'api_key', id: caller.key.keyId });
      } catch (error) {
        if (appending && isUnavailableDependency(error)) {
          // The store went away during the append: it may have committed. Hold on to everything until it can say.
          this.logger.error(
            `a charge's outcome is unknown, settled once the store answers: ${(error as Error).message}`,
          );
          settleUnknownCharge(
            {
              counters: this.counters,
              idempotency: this.idempotency,
              chargePosition: (id) => this.seeds.chargePosition(id),
              logger: this.logger,
            },
            { chargeId, journal, changes, idempotency: idempotency ? { ...idempotency, response } : null },
          );
          claimKept = true;
          throw MeteringException.of(503, MESSAGES.chargeUnknown, { ...rateHeaders, ...creditHeaders(used) });
        }
        this.logger.error(`recording a charge failed, the call is not served: ${(error as Error).message}`);
        if (live) await this.counters.adjust(quotaKey, -credits, journal).catch(() => null);
        if (unitsKey && price.units)
          await this.counters.adjust(unitsKey, -price.units.count, journal).catch(() => null);
        throw MeteringException.of(503, MESSAGES.chargeFailed, {
          ...rateHeaders,
          ...creditHeaders(used - (live ? credits : 0)),
        });
      }
      // Durable: the counters hold what the ledger holds. (If this fails, the sweep after this node stops does it.)
      // Not awaited: nothing below depends on it, and the answer need not wait for one more round trip to Redis.
      void this.counters
        .settle(journal, changes, () => this.seeds.durableChargePosition(chargeId))
        .catch((error: unknown) => this.logger.warn(`settling the counters failed: ${(error as Error).message}`));
      if (idempotency) await this.idempotency.complete(idempotency.key, idempotency.fingerprint, response);
      return response;
    } catch (error) {
      if (idempotency && !claimKept) await this.idempotency.release(idempotency.key).catch(() => {});
      throw error;
    }
  }

  /** Authentication and the rate limit alone, for free routes (GET /usage). */
  async authenticateAndLimit(apiKey: string | null): Promise<{ caller: Caller; headers: Record<string, string> }> {
    const caller = await this.authenticate(apiKey);
    const { headers } = await this.rateLimit(caller);
    return { caller, headers };
  }

  private async authenticate(apiKey: string | null): Promise<Caller> {
    if (!apiKey || !parseApiKey(apiKey)) throw MeteringException.of(401, MESSAGES.invalidKey, {});
    const key = await this.keys.lookup(apiKey);
    if (!key) throw MeteringException.of(401, MESSAGES.invalidKey, {});
    if (key.status !== 'active') throw MeteringException.of(401, MESSAGES.revokedKey, {});
    const plan = await this.plans.get(key.orgId);
    if (!plan) throw MeteringException.of(401, MESSAGES.invalidKey, {});
    return { key, plan };
  }

  private authorize(key: KeyRecord, spec: MeteredOperationSpec, body: Record<string, unknown>): void {
    if (!key.scopes.includes(spec.scope)) {
      throw MeteringException.of(403, `Forbidden: this API key does not have the '${spec.scope}' scope.`, {});
    }
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
    const decision = await this.rateLimiter.consume(caller.key.keyId, limit);
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      const month = billingMonth(new Date());
      const used = await this.counters.read(counterKeys.quota(this.config.redisPrefix, caller.key.orgId, month), () =>
        this.seeds.liveCredits(caller.key.orgId, month),
      );
      throw rateLimited(caller, decision, used);
    }
    return { headers };
  }

  /**
   * The rate limit and the quota reservation of a live call in one atomic step, when the counters offer it (Redis):
   * the same decisions, headers and errors as `rateLimit` followed by `counters.reserve`. Null when they do not.
   */
  private async rateLimitAndReserve(
    call: MeteredCall,
    caller: Caller,
    quotaKey: string,
    seed: Seed,
    journal: CounterJournal | null,
  ): Promise<{ headers: Record<string, string>; estimate: number; reservation: Reservation } | null> {
    const limit = caller.plan.rateLimitPerMinute[caller.key.environment];
    const window = this.rateLimiter.sharedWindow(caller.key.keyId, limit);
    if (!window || !this.counters.reserveWithinRateLimit) return null;
    const estimate = maximumCredits(call.spec.estimate(call.body));
    const allowance = caller.plan.monthlyCreditAllowance;
    const result = await this.counters.reserveWithinRateLimit(window, quotaKey, estimate, allowance, seed, journal);
    const decision = this.rateLimiter.decide(limit, result.rate);
    if (!result.allowed) throw rateLimited(caller, decision, result.used);
    return { headers: rateLimitHeaders(decision), estimate, reservation: result.reservation };
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
      const claim = await this.idempotency.claim(key, fingerprint, owner);
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

function replayOf(response: StoredResponse): MeteredResponse {
  return { ...response, headers: { ...response.headers, 'Idempotent-Replayed': 'true' } };
}

function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return { 'X-RateLimit-Limit': String(decision.limit), 'X-RateLimit-Remaining': String(decision.remaining) };
}

function rateLimited(caller: Caller, decision: RateLimitDecision, used: number): MeteringException {
  return MeteringException.of(
    429,
    MESSAGES.rateLimited,
    {
      ...rateLimitHeaders(decision),
      ...usageHeaders(caller.plan.monthlyCreditAllowance, used),
      'Retry-After': String(decision.retryAfterSeconds),
    },
    { retry_after: decision.retryAfterSeconds },
  );
}

function usageHeaders(limit: number, used: number): Record<string, string> {
  return {
    'X-Credits-Limit': String(limit),
    'X-Credits-Used': String(used),
    'X-Credits-Remaining': String(Math.max(0, limit - used)),
  };
}
