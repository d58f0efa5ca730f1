import { LRUCache } from 'lru-cache';
import { FAILURE_TTL_MS, type FailureMemory, failureCounts } from './failure-memory.js';

/** Canonical URLs remembered at most (the oldest go first). */
const MAX_FAILURES = 10_000;

/** The failure memory of one process (embedded mode, or no Redis). */
export class RecentFailures implements FailureMemory {
  private readonly failures = new LRUCache<string, number>({ max: MAX_FAILURES, ttl: FAILURE_TTL_MS });

  remember(key: string, at = Date.now()): void {
    this.failures.set(key, at);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  failedWithin(keys: readonly string[], maxAgeSeconds: number, now = Date.now()): Promise<Set<string>> {
    return Promise.resolve(
      new Set(
        keys.filter((key) => {
          const at = this.failures.get(key);
          return at !== undefined && failureCounts(at, maxAgeSeconds, now);
        }),
      ),
    );
  }
}
