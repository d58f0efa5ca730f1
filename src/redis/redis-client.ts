import { createClient } from 'redis';
import { redisClientOptions } from './redis-client-options.js';

/** Opens the shared connection (not yet connected) with the service's reconnection and command timeout. */
export const connectRedis = (url: string, commandTimeoutMs: number) =>
  createClient(redisClientOptions(url, commandTimeoutMs));
export type RedisClient = ReturnType<typeof connectRedis>;
