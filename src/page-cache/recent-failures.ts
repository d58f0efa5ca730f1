import { LRUCache } from 'lru-cache';

/** How long a failed read is remembered: a page that failed minutes ago is likely to fail again. */
export const FAILURE_TTL_MS = 5 * 60_000;
/** Canonical URLs remembered at most (the oldest go first). */
const MAX_FAILURES = 10_000;

/**
 * Reads that failed lately (an HTTP error, a timeout, no readable text), by canonical URL, in this process: a search
 * shows such a page by its snippet at once instead of waiting for it again, as long as its max_age allows (the
 * failure is younger than max_age, and at most FAILURE_TTL_MS old).
 */
export class RecentFailures {
  private readonly failures = new LRUCache<string, number>({ max: MAX_FAILURES, ttl: FAILURE_TTL_MS });

  remember(key: string, now = Date.now()): void {
    this.failures.set(key, now);
  }

  /** A read succeeded: whatever failed before no longer counts. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** Whether `key` failed within the last `maxAgeSeconds` (0: never). */
  failedWithin(key: string, maxAgeSeconds: number, now = Date.now()): boolean {
    const at = this.failures.get(key);
    return at !== undefined && maxAgeSeconds > 0 && now - at <= maxAgeSeconds * 1000;
  }
}
