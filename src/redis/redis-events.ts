import { ErrorReply } from 'redis';
import { isCluster } from './cluster-nodes.js';
import type { RedisClient } from './redis-client.js';

/**
 * Calls `listener` when a connection to Redis is lost or failing: the server's connection, or on a cluster the
 * connection to any of its nodes (Redis may have lost what that node held).
 */
export function onRedisConnectionLost(redis: RedisClient, listener: () => void): void {
  const events = isCluster(redis)
    ? (['node-error', 'node-disconnect', 'node-reconnecting'] as const)
    : (['error', 'end', 'reconnecting'] as const);
  for (const event of events) redis.on(event, listener);
}

/** Calls `listener` when a connection to Redis is ready again (the server's, or a cluster node's). */
export function onRedisReady(redis: RedisClient, listener: () => void): void {
  redis.on(isCluster(redis) ? 'node-ready' : 'ready', listener);
}

/**
 * Whether a command that failed so may have reached Redis without its answer coming back, or was refused for the
 * time being: worth sending again later (with a receipt that makes a second run a no-op), rather than a command
 * that Redis ran and refused. On one server: the connection is not ready. On a cluster the client stays ready
 * while one node is lost, so the error says it: anything but Redis's own reply, or a reply that the slot is not
 * served right now.
 */
export function mayRetryLater(redis: RedisClient, error: unknown): boolean {
  if (!isCluster(redis)) return !redis.isReady;
  return !(error instanceof ErrorReply) || /^(CLUSTERDOWN|TRYAGAIN|MASTERDOWN|LOADING)\b/.test(error.message);
}
