import type { RedisClientOptions, RedisClusterOptions } from 'redis';

/** The longest pause between two attempts to reconnect (jitter aside). */
const MAX_RECONNECT_DELAY_MS = 500;

/**
 * How the shared connection behaves when Redis goes away. A command waits in node-redis's queue for the connection
 * to come back at most `commandTimeoutMs` (REDIS_COMMAND_TIMEOUT_MS), then fails with node-redis's TimeoutError: the
 * call answers 503 instead of waiting out the outage. node-redis stops timing a command once it is written, so a
 * command the timeout fails was never sent and did nothing in Redis (it may also fail so while the client is ready,
 * queued behind a backlog Redis does not read). A command already sent when the connection dies fails at once; one
 * sent to a Redis that stops answering without closing the connection is not cut short (RedisStallWatch refuses
 * new calls meanwhile).
 * Reconnection is tried about every half second, so that calls are served soon after Redis is back.
 */
export function redisClientOptions(url: string, commandTimeoutMs: number) {
  return {
    url,
    commandOptions: { timeout: commandTimeoutMs },
    socket: {
      reconnectStrategy: (retries: number) =>
        Math.min(50 * 2 ** Math.min(retries, 10), MAX_RECONNECT_DELAY_MS) + Math.floor(Math.random() * 100),
    },
  } satisfies RedisClientOptions;
}

/**
 * How long the cluster client tries to reconnect to a lost node before it reads the topology again (its replica may
 * have taken its place); node-redis waits 5 s by default, which keeps a failed-over slot answering 503 that long.
 */
const TOPOLOGY_REFRESH_MS = 1_000;

/**
 * The cluster client: each node's connection behaves as the single one does (see redisClientOptions); the seed nodes
 * only find the topology, which the client follows on MOVED and ASK and reads again when a node stops answering (its
 * replica takes over).
 */
export function redisClusterOptions(nodeUrls: readonly string[], commandTimeoutMs: number) {
  const { commandOptions, socket } = redisClientOptions(nodeUrls[0]!, commandTimeoutMs);
  return {
    rootNodes: nodeUrls.map((url) => ({ url })),
    defaults: { socket },
    commandOptions,
    topologyRefreshOnReconnectionAttemptStrategy: TOPOLOGY_REFRESH_MS,
  } satisfies RedisClusterOptions;
}
