import { redisKeyspace } from '../../redis/redis-keyspace.js';
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { counterKeys } from '../counter-keys.js';
import { CounterSeeds } from '../counters/counter-seeds.js';
import { CREDIT_COUNTERS, type CreditCounters, type SettledChange } from '../counters/credit-counters.js';
import { takeBackChange } from '../counters/take-back-change.js';
import type { CreditsCharged, PriceItem } from '../events/credits-charged.event.js';
import { InflightCalls } from '../inflight-calls.js';
import { creditsForUnits } from '../pricing.js';
import type { Admitted, MeteredCall, Priced, WorkOutcome } from './metered-call.js';
import { usageHeaders } from './pipeline-answers.js';

/**
 * What a call costs once its work is done: its price items, and for volume prices the units it adds to its month's
 * running count (a Redis counter, journaled until the charge is durable); its CreditsCharged, and its answer.
 */
@Injectable()
export class CallPricing {
  private readonly logger = new Logger('Metering');

  constructor(
    @Inject(CREDIT_COUNTERS) private readonly counters: CreditCounters,
    private readonly seeds: CounterSeeds,
    private readonly inflight: InflightCalls,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async price(call: MeteredCall, admitted: Admitted, outcome: WorkOutcome): Promise<Priced> {
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
        const key = counterKeys.units(redisKeyspace(this.config), orgId, month, environment, priceClass);
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
}
