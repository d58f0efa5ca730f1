import { Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { METRICS_REGISTRY } from '../observability/metrics.js';
import { type RedisClient, connectRedis, connectRedisCluster } from './redis-client.js';
import { RedisStallWatch } from './redis-stall-watch.js';

// The client's type lives in redis-client.ts, which the stall watch imports too; it is exported from here as well.
export type { RedisClient };
/** The shared Redis connection (one server, or a Redis Cluster), or null in the embedded single-node mode. */
export const REDIS = Symbol('REDIS');
/** Whether that connection's Redis still answers (REDIS_STALL_TIMEOUT_MS), or null (no Redis, or not watched). */
export const REDIS_STALL_WATCH = Symbol('REDIS_STALL_WATCH');

@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig): Promise<RedisClient | null> => {
        if (config.redisClusterNodes.length > 0) {
          const cluster = connectRedisCluster(config.redisClusterNodes, config.redisCommandTimeoutMs);
          for (const event of ['error', 'node-error'] as const) {
            cluster.on(event, () => {
              // Each node reconnects by itself, and the client follows a failover; readiness reports the outage.
            });
          }
          await cluster.connect();
          return cluster;
        }
        if (!config.redisUrl) return null;
        const client = connectRedis(config.redisUrl, config.redisCommandTimeoutMs);
        client.on('error', () => {
          // Reconnects by itself; readiness reports the outage.
        });
        await client.connect();
        return client;
      },
    },
    {
      provide: REDIS_STALL_WATCH,
      inject: [REDIS, APP_CONFIG, METRICS_REGISTRY],
      useFactory: (redis: RedisClient | null, config: AppConfig, registry: Registry): RedisStallWatch | null => {
        if (!redis || config.redisStallTimeoutMs === 0) return null;
        const watch = new RedisStallWatch(redis, config.redisStallTimeoutMs, new Logger('Redis'));
        watch.register(registry);
        return watch;
      },
    },
  ],
  exports: [REDIS, REDIS_STALL_WATCH],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient | null,
    @Inject(REDIS_STALL_WATCH) private readonly stallWatch: RedisStallWatch | null,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    this.stallWatch?.stop();
    await this.redis?.close().catch(() => {});
  }
}
