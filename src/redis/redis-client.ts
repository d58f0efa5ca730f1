import { createClient, createCluster } from 'redis';
import { redisClientOptions, redisClusterOptions } from './redis-client-options.js';

/** Opens the shared connection (not yet connected) with the service's reconnection and command timeout. */
export const connectRedis = (url: string, commandTimeoutMs: number) =>
  createClient(redisClientOptions(url, commandTimeoutMs));
/** Opens the shared Redis Cluster client (not yet connected): seed nodes, the same reconnection and command timeout. */
export const connectRedisCluster = (nodeUrls: readonly string[], commandTimeoutMs: number) =>
  createCluster(redisClusterOptions(nodeUrls, commandTimeoutMs));

export type SingleRedisClient = ReturnType<typeof connectRedis>;
export type RedisClusterClient = ReturnType<typeof connectRedisCluster>;
/** The shared Redis: one server (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES). */
export type RedisClient = SingleRedisClient | RedisClusterClient;
