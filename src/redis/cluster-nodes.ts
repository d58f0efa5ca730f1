import type { RedisClient, RedisClusterClient, SingleRedisClient } from './redis-client.js';

export function isCluster(redis: RedisClient): redis is RedisClusterClient {
  return 'masters' in redis;
}

/** A connection to each server that holds keys: the one server, or every master of a cluster. */
export async function serverConnections(redis: RedisClient): Promise<SingleRedisClient[]> {
  if (!isCluster(redis)) return [redis];
  return (await Promise.all(redis.masters.map((master) => redis.nodeClient(master)))) as SingleRedisClient[];
}

/** Every key matching `pattern` (a SCAN MATCH pattern), on one server or on every master of a cluster. */
export async function scanKeys(redis: RedisClient, pattern: string): Promise<string[]> {
  const found: string[] = [];
  for (const server of await serverConnections(redis)) {
    for await (const keys of server.scanIterator({ MATCH: pattern, COUNT: 1000 })) found.push(...keys);
  }
  return found;
}

/** GET of each key (MGET on one server; on a cluster the keys may be in several slots, so one GET each). */
export async function getMany(redis: RedisClient, keys: readonly string[]): Promise<(string | null)[]> {
  if (!isCluster(redis)) return (await redis.mGet([...keys])).map((value) => value ?? null);
  return Promise.all(keys.map((key) => redis.get(key)));
}

/** Throws unless every master of the cluster answers and says the cluster serves every slot (cluster_state:ok). */
export async function assertClusterServes(redis: RedisClusterClient): Promise<void> {
  for (const master of await serverConnections(redis)) {
    const info = String(await master.sendCommand(['CLUSTER', 'INFO']));
    if (!/^cluster_state:ok\b/m.test(info))
      throw new Error(`Redis Cluster node ${master.options?.url ?? ''} is not ok`);
  }
}
