import { orgTag } from './hash-tags.js';

/** Where the service's Redis keys live: their prefix (REDIS_PREFIX), and whether Redis is a cluster. */
export interface RedisKeyspace {
  readonly prefix: string;
  /** On a cluster each organization's keys carry its hash tag (see orgTag); on one server, names stay as they were. */
  readonly cluster: boolean;
}

export function redisKeyspace(config: {
  readonly redisPrefix: string;
  readonly redisClusterNodes: readonly string[];
}): RedisKeyspace {
  return { prefix: config.redisPrefix, cluster: config.redisClusterNodes.length > 0 };
}

/** The organization's part of a key name: `{<id>}` on a cluster, the id alone on one server. */
export const orgPart = (space: RedisKeyspace, orgId: string) => orgTag(space.cluster, orgId);
