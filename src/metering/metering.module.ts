import { Global, Module } from '@nestjs/common';
import { REDIS, type RedisClient } from '../redis/redis.module.js';
import { ChargeWriter } from './charge-writer.js';
import { CounterSeeds } from './counters/counter-seeds.js';
import { CREDIT_COUNTERS } from './counters/credit-counters.js';
import { MemoryCreditCounters } from './counters/memory-credit-counters.js';
import { RedisCreditCounters } from './counters/redis-credit-counters.js';
import { IDEMPOTENCY_STORE } from './idempotency/idempotency.store.js';
import { MemoryIdempotencyStore } from './idempotency/memory-idempotency.store.js';
import { RedisIdempotencyStore } from './idempotency/redis-idempotency.store.js';
import { InflightCalls } from './inflight-calls.js';
import { MeteredInterceptor } from './metered.decorator.js';
import { MeteringPipeline } from './metering-pipeline.js';
import { OrgPlansService } from './org-plans.service.js';
import { RateLimiterService } from './rate-limiter.service.js';
import { UsageController } from './usage.controller.js';

/** The one metering pipeline, with Redis-backed state when REDIS_URL is set and in-process state otherwise. */
@Global()
@Module({
  controllers: [UsageController],
  providers: [
    MeteringPipeline,
    MeteredInterceptor,
    ChargeWriter,
    CounterSeeds,
    InflightCalls,
    OrgPlansService,
    RateLimiterService,
    {
      provide: CREDIT_COUNTERS,
      inject: [REDIS],
      useFactory: (redis: RedisClient | null) => (redis ? new RedisCreditCounters(redis) : new MemoryCreditCounters()),
    },
    {
      provide: IDEMPOTENCY_STORE,
      inject: [REDIS],
      useFactory: (redis: RedisClient | null) =>
        redis ? new RedisIdempotencyStore(redis) : new MemoryIdempotencyStore(),
    },
  ],
  exports: [MeteringPipeline, MeteredInterceptor, CREDIT_COUNTERS],
})
export class MeteringModule {}
