import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { createClient } from 'redis';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { redisClientOptions } from './redis-client-options.js';

const connect = (url: string, commandTimeoutMs: number) => createClient(redisClientOptions(url, commandTimeoutMs));
export type RedisClient = ReturnType<typeof connect>;
/** The shared Redis connection, or null in the embedded single-node mode. */
export const REDIS = Symbol('REDIS');

@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig): Promise<RedisClient | null> => {
        if (!config.redisUrl) return null;
        const client = connect(config.redisUrl, config.redisCommandTimeoutMs);
        client.on('error', () => {
          // Reconnects by itself; readiness reports the outage.
        });
        await client.connect();
        return client;
      },
    },
  ],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: RedisClient | null) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis?.close().catch(() => {});
  }
}
