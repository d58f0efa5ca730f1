import { Logger } from '@nestjs/common';
import { withTimeout } from '../observability/with-timeout.js';
import type { RedisClient } from '../redis/redis.module.js';
import { getMany } from '../redis/cluster-nodes.js';
import { FAILURE_TTL_MS, type FailureMemory, failureCounts } from './failure-memory.js';

/** A lookup slower than this is given up (nothing remembered): it runs alongside the page cache's own lookup. */
const LOOKUP_TIMEOUT_MS = 250;

/**
 * The failure memory every node shares (services mode): one key per canonical URL, `<REDIS_PREFIX>page-failed:<url>`,
 * holding the failure's time and expiring FAILURE_TTL_MS after it; one MGET for all the URLs of a search. When Redis
 * does not answer, nothing is remembered and every page is read again.
 */
export class RedisRecentFailures implements FailureMemory {
  private readonly logger = new Logger('RedisRecentFailures');
  private readonly prefix: string;

  constructor(
    private readonly redis: RedisClient,
    redisPrefix: string,
  ) {
    this.prefix = `${redisPrefix}page-failed:`;
  }

  remember(key: string, at = Date.now()): void {
    const ttl = FAILURE_TTL_MS - (Date.now() - at);
    if (ttl <= 0) return;
    this.redis
      .set(this.prefix + key, String(at), { expiration: { type: 'PX', value: ttl } })
      .catch((error: Error) => this.logger.warn(`remembering a failed read failed: ${error.message}`));
  }

  forget(key: string): void {
    this.redis.del(this.prefix + key).catch(() => {});
  }

  async failedWithin(keys: readonly string[], maxAgeSeconds: number, now = Date.now()): Promise<Set<string>> {
    if (keys.length === 0 || maxAgeSeconds <= 0) return new Set();
    let times: (string | null)[];
    try {
      times = await withTimeout(
        getMany(
          this.redis,
          keys.map((key) => this.prefix + key),
        ),
        LOOKUP_TIMEOUT_MS,
      );
    } catch (error) {
      this.logger.warn(`looking up failed reads failed: ${(error as Error).message}`);
      return new Set();
    }
    return new Set(keys.filter((_, i) => times[i] != null && failureCounts(Number(times[i]), maxAgeSeconds, now)));
  }
}
