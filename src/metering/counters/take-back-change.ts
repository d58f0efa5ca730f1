import type { Logger } from '@nestjs/common';
import { isUnavailableDependency } from '../../http/unavailable-dependency.js';
import type { CounterJournal, CreditCounters } from './credit-counters.js';

/** Waits between tries while Redis does not answer; the last one repeats. */
const RETRY_MS = [250, 1_000, 2_000, 5_000, 10_000, 30_000];
/** About an hour of tries. */
const MAX_ATTEMPTS = 130;

export interface JournaledChange {
  readonly key: string;
  readonly amount: number;
  readonly journal: CounterJournal;
}

/**
 * Takes back a journaled change of a call that is not billed, including one whose command may have run in Redis
 * although its answer was lost (the connection dropped on the way back). The journal says whether it ran: `adjust`
 * takes back only what the call's journal entry holds, and removes the entry, so a change that never ran, or one
 * taken back already, is left alone. Tried at once; while Redis does not answer, again in the background. Resolves
 * once the first try is over, whatever it gave.
 */
export async function takeBackChange(counters: CreditCounters, change: JournaledChange, logger: Logger): Promise<void> {
  const attempt = async (n: number): Promise<void> => {
    try {
      await counters.adjust(change.key, -change.amount, change.journal);
    } catch (error) {
      if (!isUnavailableDependency(error) || n + 1 >= MAX_ATTEMPTS) {
        logger.error(`taking back ${change.amount} from ${change.key} failed: ${(error as Error).message}`);
        return;
      }
      const timer = setTimeout(() => void attempt(n + 1), RETRY_MS[Math.min(n, RETRY_MS.length - 1)]);
      timer.unref();
    }
  };
  await attempt(0);
}
