import { redisKeyspace } from '../../redis/redis-keyspace.js';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { parseApiKey } from '../../keys/api-key-secret.js';
import type { KeyEnvironment, KeyScope } from '../../keys/events/key.events.js';
import { KeyLookupService } from '../../keys/key-lookup.service.js';
import type { KeyRecord } from '../../keys/key-record.js';
import { REDIS_STALL_WATCH } from '../../redis/redis.module.js';
import type { RedisStallWatch } from '../../redis/redis-stall-watch.js';
import { billingMonth, counterKeys } from '../counter-keys.js';
import { CounterSeeds } from '../counters/counter-seeds.js';
import { QUOTA_GATE, type QuotaGate } from '../leases/quota-gate.js';
import { RateLeases } from '../leases/rate-leases.js';
import type { MeteredOperationSpec } from '../metered-operation.js';
import { MESSAGES, MeteringException } from '../metering.errors.js';
import { OrgPlansService } from '../org-plans.service.js';
import { callReceivedAt, noteCallKey } from '../request-log-context.js';
import type { Admitted, Caller, MeteredCall, Quota } from './metered-call.js';
import { missingScope, rateLimitHeaders, rateLimited } from './pipeline-answers.js';

/**
 * The pipeline's first step: the API key (401), its scope and depth (403), the rate limit (429), and the call's
 * month and quota (the counter its usage headers read).
 */
@Injectable()
export class CallAdmission {
  constructor(
    private readonly keys: KeyLookupService,
    private readonly plans: OrgPlansService,
    private readonly rateLimits: RateLeases,
    private readonly seeds: CounterSeeds,
    @Inject(QUOTA_GATE) private readonly quotas: QuotaGate,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS_STALL_WATCH) private readonly redisStall: RedisStallWatch | null,
  ) {}

  async admit(call: MeteredCall): Promise<Admitted> {
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

  /**
   * The organization's credits used this month in one environment, as this node knows them (usage headers, GET
   * /usage): live from the quota counter, test from the read models.
   */
  creditsUsed(orgId: string, month: string, environment: KeyEnvironment = 'live'): Promise<number> {
    if (environment === 'test') return this.seeds.testCredits(orgId, month).then((seeded) => seeded.value);
    return this.quotas.usedNow(counterKeys.quota(redisKeyspace(this.config), orgId, month), () =>
      this.seeds.liveCredits(orgId, month),
    );
  }

  private quotaOf(caller: Caller, month: string): Quota {
    const { orgId, environment } = caller.key;
    const key = counterKeys.quota(redisKeyspace(this.config), orgId, month);
    const limit = caller.plan.monthlyCreditLimit;
    if (environment === 'live') {
      const seed = () => this.seeds.liveCredits(orgId, month);
      return { live: true, key, limit, seed, used: () => this.quotas.usedNow(key, seed), hold: null };
    }
    // No counter counts test credits: the read models do, once they include every charge stored (this call's too).
    const seed = () => this.seeds.testCredits(orgId, month);
    return { live: false, key, limit, seed, used: async () => (await seed()).value, hold: null };
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
}
