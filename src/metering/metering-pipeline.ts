import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { parseApiKey } from '../keys/api-key-secret.js';
import { KeyLookupService } from '../keys/key-lookup.service.js';
import type { KeyRecord } from '../keys/key-record.js';
import { ChargeWriter } from './charge-writer.js';
import { billingMonth, counterKeys } from './counter-keys.js';
import { CounterSeeds } from './counters/counter-seeds.js';
import { CREDIT_COUNTERS, type CreditCounters } from './counters/credit-counters.js';
import type { CreditsCharged, PriceItem } from './events/credits-charged.event.js';
import { IDEMPOTENCY_STORE, type IdempotencyStore, type StoredResponse } from './idempotency/idempotency.store.js';
import { requestFingerprint } from './idempotency/request-fingerprint.js';
import type { MeteredOperationSpec, UsageCounts } from './metered-operation.js';
import { MESSAGES, MeteringException } from './metering.errors.js';
import { type OrgPlan, OrgPlansService } from './org-plans.service.js';
import { creditsForUnits, maximumCredits } from './pricing.js';
import { RateLimiterService } from './rate-limiter.service.js';

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
 * the charge, bills nothing and gives the reservation back.
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
  ) {}

  async execute(call: MeteredCall, work: (caller: Caller) => Promise<WorkOutcome>): Promise<MeteredResponse> {
    const caller = await this.authenticate(call.apiKey);
    this.authorize(caller.key, call.spec, call.body);
    const { headers: rateHeaders } = await this.rateLimit(caller);
    const month = billingMonth(new Date());
    const quotaKey = counterKeys.quota(this.config.redisPrefix, caller.key.orgId, month);
    const limit = caller.plan.monthlyCreditAllowance;
    const live = caller.key.environment === 'live';
    const seedCredits = () => this.seeds.liveCredits(caller.key.orgId, month);
    const creditHeaders = (used: number) => usageHeaders(limit, used);

    const idempotency = call.idempotencyKey ? await this.claimIdempotency(call, caller, rateHeaders) : null;
    if (idempotency && 'replay' in idempotency) return idempotency.replay;
    try {
      const estimate = maximumCredits(call.spec.estimate(call.body));
      let reserved = 0;
      let usedAfterReservation = 0;
      if (live) {
        const reservation = await this.counters.reserve(quotaKey, estimate, limit, seedCredits);
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
        const used = live ? await this.counters.adjust(quotaKey, -reserved) : null;
        throw MeteringException.withHeaders(error, {
          ...rateHeaders,
          ...creditHeaders(used ?? (await this.counters.read(quotaKey, seedCredits))),
        });
      }

      const price = call.spec.price(call.body, outcome.counts);
      const items: PriceItem[] = [...price.items];
      let unitsKey: string | null = null;
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
          const total = await this.counters.increment(unitsKey, units.count, () =>
            this.seeds.units(caller.key.orgId, month, caller.key.environment, units.price_class),
          );
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
          : await this.counters.adjust(quotaKey, credits - reserved);
      const used = settled ?? (await this.counters.read(quotaKey, seedCredits));

      const charge: CreditsCharged = {
        type: 'CreditsCharged',
        data: {
          charge_id: randomUUID(),
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
      try {
        await this.charges.append(charge, { type: 'api_key', id: caller.key.keyId });
      } catch (error) {
        this.logger.error(`recording a charge failed, the call is not served: ${(error as Error).message}`);
        if (live) await this.counters.adjust(quotaKey, -credits).catch(() => null);
        if (unitsKey && price.units) await this.counters.adjust(unitsKey, -price.units.count).catch(() => null);
        throw MeteringException.of(503, MESSAGES.chargeFailed, {
          ...rateHeaders,
          ...creditHeaders(used - (live ? credits : 0)),
        });
      }

      const body: Record<string, unknown> = { ...outcome.body };
      body.request_id ??= call.requestId;
      if (call.body.include_usage === true) body.usage = { credits, breakdown: items };
      const response: MeteredResponse = { status: 200, body, headers: { ...rateHeaders, ...creditHeaders(used) } };
      if (idempotency) await this.idempotency.complete(idempotency.key, idempotency.fingerprint, response);
      return response;
    } catch (error) {
      if (idempotency) await this.idempotency.release(idempotency.key).catch(() => {});
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
    const headers = { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': String(decision.remaining) };
    if (!decision.allowed) {
      const month = billingMonth(new Date());
      const used = await this.counters.read(counterKeys.quota(this.config.redisPrefix, caller.key.orgId, month), () =>
        this.seeds.liveCredits(caller.key.orgId, month),
      );
      throw MeteringException.of(
        429,
        MESSAGES.rateLimited,
        {
          ...headers,
          ...usageHeaders(caller.plan.monthlyCreditAllowance, used),
          'Retry-After': String(decision.retryAfterSeconds),
        },
        { retry_after: decision.retryAfterSeconds },
      );
    }
    return { headers };
  }

  private async claimIdempotency(
    call: MeteredCall,
    caller: Caller,
    headers: Record<string, string>,
  ): Promise<{ key: string; fingerprint: string } | { replay: MeteredResponse }> {
    const given = call.idempotencyKey!;
    if (!IDEMPOTENCY_KEY.test(given)) {
      throw MeteringException.of(400, 'Idempotency-Key must be 1 to 255 printable ASCII characters.', headers);
    }
    const key = `${this.config.redisPrefix}idempotency:${caller.key.orgId}:${given}`;
    const fingerprint = requestFingerprint('POST', call.route, call.body);
    const claim = await this.idempotency.claim(key, fingerprint);
    switch (claim.state) {
      case 'claimed':
        return { key, fingerprint };
      case 'done':
        return { replay: { ...claim.response, headers: { ...claim.response.headers, 'Idempotent-Replayed': 'true' } } };
      case 'running':
        throw MeteringException.of(409, MESSAGES.idempotencyRunning, headers);
      case 'mismatch':
        throw MeteringException.of(422, MESSAGES.idempotencyMismatch, headers);
    }
  }
}

function usageHeaders(limit: number, used: number): Record<string, string> {
  return {
    'X-Credits-Limit': String(limit),
    'X-Credits-Used': String(used),
    'X-Credits-Remaining': String(Math.max(0, limit - used)),
  };
}
