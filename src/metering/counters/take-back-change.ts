import type { Logger } from '@nestjs/common';
import { retryWhileUnavailable } from '../retry-while-unavailable.js';
import type { CounterJournal, CreditCounters } from './credit-counters.js';

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
export function takeBackChange(counters: CreditCounters, change: JournaledChange, logger: Logger): Promise<void> {
  return retryWhileUnavailable(
    () => counters.adjust(change.key, -change.amount, change.journal),
    `taking back ${change.amount} from ${change.key}`,
    logger,
  );
}
