/** Reads the value a missing counter starts from (the read models, once they include every stored charge). */
export type Seed = () => Promise<number>;

export type Reservation = { readonly ok: true; readonly used: number } | { readonly ok: false; readonly used: number };

/**
 * The hot-path counters behind the quota check: live credits used per organization and month (with the reservations
 * of calls still running), and the running unit counts of volume prices. Redis shares them between nodes; the
 * in-process implementation serves the single-node embedded mode.
 */
export interface CreditCounters {
  /** Adds `amount` to the counter at `key` only if the result stays within `limit`. */
  reserve(key: string, amount: number, limit: number, seed: Seed): Promise<Reservation>;
  /** Adds `delta` (may be negative) to an existing counter; a counter that is gone is left to its next seed. */
  adjust(key: string, delta: number): Promise<number | null>;
  read(key: string, seed: Seed): Promise<number>;
  /** Adds `amount` and returns the new total (seeding first when missing). */
  increment(key: string, amount: number, seed: Seed): Promise<number>;
}

export const CREDIT_COUNTERS = Symbol('CREDIT_COUNTERS');

/** Counters live through the month they count plus a margin; the read models keep the history. */
export const COUNTER_TTL_SECONDS = 40 * 86400;
