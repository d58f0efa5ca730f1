import type { Logger } from '@nestjs/common';
import { isUnavailableDependency } from '../http/unavailable-dependency.js';

/** Waits between tries while the dependency does not answer; the last one repeats. */
const RETRY_MS = [250, 1_000, 2_000, 5_000, 10_000, 30_000];
/** About an hour of tries. */
const MAX_ATTEMPTS = 130;

/**
 * Runs a repair step now and, while its dependency (Redis, PostgreSQL) does not answer, again in the background
 * until it does. The step must be safe to run more than once. Resolves once the first try is over, whatever it gave.
 */
export async function retryWhileUnavailable(step: () => Promise<unknown>, what: string, logger: Logger): Promise<void> {
  const attempt = async (n: number): Promise<void> => {
    try {
      await step();
    } catch (error) {
      if (!isUnavailableDependency(error) || n + 1 >= MAX_ATTEMPTS) {
        logger.error(`${what} failed: ${(error as Error).message}`);
        return;
      }
      const timer = setTimeout(() => void attempt(n + 1), RETRY_MS[Math.min(n, RETRY_MS.length - 1)]);
      timer.unref();
    }
  };
  await attempt(0);
}
