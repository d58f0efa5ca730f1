/** How long a failed read is remembered: a page that failed minutes ago is likely to fail again. */
export const FAILURE_TTL_MS = 5 * 60_000;

/**
 * Reads that failed lately (an HTTP error, a timeout, no readable text), by canonical URL: a search shows such a page
 * by its snippet at once instead of waiting for it again, as long as its max_age allows (the failure is younger than
 * max_age, and at most FAILURE_TTL_MS old). In process (one node), or in Redis (shared by every node).
 */
export interface FailureMemory {
  /** Remembers that reading `key` failed at `at` (now). Never throws: the memory is an optimisation. */
  remember(key: string, at?: number): void;
  /** A read succeeded: whatever failed before no longer counts. Never throws. */
  forget(key: string): void;
  /** Of `keys`, those that failed within the last `maxAgeSeconds` (0: none); none when the memory cannot answer. */
  failedWithin(keys: readonly string[], maxAgeSeconds: number, now?: number): Promise<Set<string>>;
}

/** Whether a failure at `at` counts for a request whose max_age is `maxAgeSeconds`. */
export function failureCounts(at: number, maxAgeSeconds: number, now: number): boolean {
  return maxAgeSeconds > 0 && now - at <= Math.min(maxAgeSeconds * 1000, FAILURE_TTL_MS);
}
