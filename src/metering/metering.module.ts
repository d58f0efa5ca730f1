import { redisKeyspace } from '../redis/redis-keyspace.js';
import { Global, Module } from '@nestjs/common';
import { REDIS, type RedisClient } from '../redis/redis.module.js';
import { DeferredCharges } from './deferred/deferred-charges.js';
import { ChargeWriter } from './charge-writer.js';
import { CounterSeeds } from './counters/counter-seeds.js';
import { CREDIT_COUNTERS } from './counters/credit-counters.js';
import { MemoryCreditCounters } from './counters/memory-credit-counters.js';
import { RedisCreditCounters } from './counters/redis-credit-counters.js';
import { IDEMPOTENCY_STORE } from './idempotency/idempotency.store.js';
import { PostgresIdempotencyStore } from './idempotency/postgres-idempotency.store.js';
import { RedisIdempotencyStore } from './idempotency/redis-idempotency.store.js';
import { InflightCalls } from './inflight-calls.js';
import { counterKeys } from './counter-keys.js';
import type { CreditCounters } from './counters/credit-counters.js';
import { CreditLeases } from './leases/credit-leases.js';
import { CounterQuotaGate, QUOTA_GATE } from './leases/quota-gate.js';
import { RateLeases } from './leases/rate-leases.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Database } from '../database/database.js';
import { MeteredInterceptor } from './metered.decorator.js';
import { CallAdmission } from './pipeline/call-admission.js';
import { CallPricing } from './pipeline/call-pricing.js';
import { CallReservations } from './pipeline/call-reservations.js';
import { ChargeRecording } from './pipeline/charge-recording.js';
import { IdempotencyClaims } from './pipeline/idempotency-claims.js';
import { MeteringPipeline } from './pipeline/metering-pipeline.js';
import { SpendBudgets } from './budgets/spend-budgets.js';
import { CreditGrantViews } from './grants/credit-grant-views.js';
import { OrgPlansService } from './org-plans.service.js';
import { RateLimiterService } from './rate-limiter.service.js';
import { UsageController } from './usage.controller.js';

/**
 * The one metering pipeline, with Redis-backed state when REDIS_URL is set and in-process counters otherwise
 * (Idempotency-Key records then in the database).
 */
@Global()
@Module({
  controllers: [UsageController],
  providers: [
    MeteringPipeline,
    CallAdmission,
    IdempotencyClaims,
    CallReservations,
    CallPricing,
    ChargeRecording,
    SpendBudgets,
    CreditGrantViews,
    MeteredInterceptor,
    DeferredCharges,
    ChargeWriter,
    CounterSeeds,
    InflightCalls,
    OrgPlansService,
    RateLimiterService,
    {
      provide: RateLeases,
      inject: [REDIS, RateLimiterService],
      useFactory: (redis: RedisClient | null, limiter: RateLimiterService) => new RateLeases(redis, limiter),
    },
    {
      // Redis: credit leases, given back before the node leaves. Embedded: the in-process counters.
      provide: QUOTA_GATE,
      inject: [REDIS, CREDIT_COUNTERS, InflightCalls, OrgPlansService, APP_CONFIG],
      useFactory: (
        redis: RedisClient | null,
        counters: CreditCounters,
        inflight: InflightCalls,
        plans: OrgPlansService,
        config: AppConfig,
      ) => {
        if (!redis) return new CounterQuotaGate(counters);
        const leases = new CreditLeases({
          redis,
          counters,
          journalKey: inflight.journalKey,
          leasesKey: (orgId, month, budget) => counterKeys.leases(redisKeyspace(config), orgId, month, budget),
          receiptKey: (batchId) => counterKeys.leaseReceipt(redisKeyspace(config), batchId),
          allowanceOf: async (orgId) => (await plans.get(orgId))?.monthlyCreditLimit ?? null,
        });
        inflight.beforeLeaving(() => leases.returnAll());
        inflight.onLapse(() => leases.retireAll());
        return leases;
      },
    },
    {
      provide: CREDIT_COUNTERS,
      inject: [REDIS],
      useFactory: (redis: RedisClient | null) => (redis ? new RedisCreditCounters(redis) : new MemoryCreditCounters()),
    },
    {
      provide: IDEMPOTENCY_STORE,
      // Without Redis (embedded mode), in the database: a retry after a restart must not bill twice.
      inject: [REDIS, Database],
      useFactory: (redis: RedisClient | null, db: Database) =>
        redis ? new RedisIdempotencyStore(redis) : new PostgresIdempotencyStore(db),
    },
  ],
  exports: [MeteringPipeline, MeteredInterceptor, CREDIT_COUNTERS, DeferredCharges, CreditGrantViews, OrgPlansService],
})
export class MeteringModule {}
