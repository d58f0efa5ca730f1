import type { Logger } from '@nestjs/common';
import type { Position } from '../event-store/event-store.port.js';
import type { CounterJournal, CreditCounters, SettledChange } from './counters/credit-counters.js';
import type { IdempotencyStore, StoredResponse } from './idempotency/idempotency.store.js';
import type { QuotaHold } from './leases/quota-gate.js';

/** A call whose charge append failed with the store out of reach, and what it holds meanwhile. */
export interface UnknownCharge {
  readonly chargeId: string;
  readonly journal: CounterJournal | null;
  /** The call's credits, and their reservations (the allowance's, the budgets'; kept until the outcome is known). */
  readonly credits: number;
  readonly holds: readonly QuotaHold[];
  /** What the call holds in each other counter (the charge's units). */
  readonly changes: readonly SettledChange[];
  /** Its Idempotency-Key, still claimed, and the response a retry replays if the charge is in the ledger. */
  readonly idempotency: {
    readonly key: string;
    readonly fingerprint: string;
    readonly response: StoredResponse;
  } | null;
}

export interface UnknownChargeDeps {
  readonly counters: CreditCounters;
  readonly idempotency: IdempotencyStore;
  /** Where the charge is in the ledger once the ledger includes every stored event; null when it is not there. */
  readonly chargePosition: (chargeId: string) => Promise<Position | null>;
  readonly logger: Logger;
}

/** Waits between looks at the ledger; the last one repeats until the ledger answers. */
const RETRY_MS = [500, 1_000, 2_000, 5_000, 10_000, 30_000];
const MAX_ATTEMPTS = 120;

/**
 * A charge append that failed because PostgreSQL went away may have committed all the same (the server took the
 * statement, its answer was lost), so the call answers 503 not knowing whether it was charged. It neither gives back
 * what it holds nor forgets it: the counters keep its amounts (journaled) and its Idempotency-Key stays claimed (a
 * retry gets 409), until the ledger can say. Then, in the background: charged, the counters hold what the ledger holds
 * and a retry replays the response; not charged (twice in a row, a moment apart), the amounts are given back and the
 * key is released. Should this node stop first, the other nodes settle its journal (InflightCalls).
 */
export function settleUnknownCharge(deps: UnknownChargeDeps, charge: UnknownCharge): void {
  let attempt = 0;
  let absentBefore = false;
  const look = async (): Promise<boolean> => {
    const position = await deps.chargePosition(charge.chargeId);
    if (position) {
      await deps.counters.settle(charge.journal, charge.changes, async () => position);
      for (const hold of charge.holds) await hold.charged(charge.credits, async () => position);
      if (charge.idempotency) {
        const { key, fingerprint, response } = charge.idempotency;
        await deps.idempotency.complete(key, fingerprint, response);
      }
      deps.logger.warn(`charge ${charge.chargeId} of a call answered 503 was recorded after all: it stands`);
      return true;
    }
    if (!absentBefore) {
      absentBefore = true; // a transaction still finishing could yet show it: look once more
      return false;
    }
    for (const change of charge.changes) await deps.counters.adjust(change.key, -change.amount, charge.journal);
    for (const hold of charge.holds) await hold.release();
    if (charge.idempotency) await deps.idempotency.release(charge.idempotency.key);
    deps.logger.log(`charge ${charge.chargeId} of a call answered 503 was not recorded: its reservation is released`);
    return true;
  };
  const next = () => {
    const timer = setTimeout(
      () => {
        look().then(
          (done) => done || again(),
          () => again(),
        );
      },
      absentBefore ? 1_000 : RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)],
    );
    timer.unref();
    attempt += 1;
  };
  const again = () => {
    if (attempt < MAX_ATTEMPTS) return next();
    deps.logger.error(`charge ${charge.chargeId}: still unknown, its reservation stays held`);
  };
  next();
}
