import type { From, Position } from '../../event-store/event-store.port.js';

/**
 * A seed: the value a missing counter starts from, and the store position it covers (every charge at or before
 * `covers` is counted in `value`, none after it). A bare number covers an unknown position: it is trusted to include
 * every charge a call could still settle.
 */
export interface SeedValue {
  readonly value: number;
  readonly covers: From;
}

/** Reads the value a missing counter starts from (the read models, once they include every stored charge). */
export type Seed = () => Promise<number | SeedValue>;

export function seedValueOf(seeded: number | SeedValue): { readonly value: number; readonly covers: From | null } {
  return typeof seeded === 'number' ? { value: seeded, covers: null } : seeded;
}

/** What one call's charge adds to one counter, once durable: `amount`, and how to seed the counter if it is gone. */
export interface SettledChange {
  readonly key: string;
  readonly amount: number;
  readonly seed: Seed;
}

export type Reservation = { readonly ok: true; readonly used: number } | { readonly ok: false; readonly used: number };

/**
 * Where a node notes, in the same atomic step as each counter change, what one call added to which counter, until its
 * charge is durable (`settle`): if the node dies in between, another node takes back what the call added unless its
 * charge made it to the ledger (see InflightCalls). `key` is the node's journal, `call` the call's charge id.
 */
export interface CounterJournal {
  readonly key: string;
  readonly call: string;
}

/**
 * The hot-path counters behind the quota check: live credits used per organization and month (with the reservations
 * of calls still running), and the running unit counts of volume prices. Redis shares them between nodes; the
 * in-process implementation serves the single-node embedded mode.
 */
export interface CreditCounters {
  /** Adds `amount` to the counter at `key` only if the result stays within `limit`. */
  reserve(
    key: string,
    amount: number,
    limit: number,
    seed: Seed,
    journal?: CounterJournal | null,
  ): Promise<Reservation>;
  /**
   * Adds `delta` (may be negative) to an existing counter; a counter that is gone is left to its next seed. With a
   * journal, only to a counter that still holds the call's earlier change (its journal entry): when Redis lost both,
   * the counter seeded again never had it (null then too).
   */
  adjust(key: string, delta: number, journal?: CounterJournal | null): Promise<number | null>;
  read(key: string, seed: Seed): Promise<number>;
  /** Adds `amount` and returns the new total (seeding first when missing). */
  increment(key: string, amount: number, seed: Seed, journal?: CounterJournal | null): Promise<number>;
  /**
   * The call's charge is durable: the counters hold what the ledger holds, its journal entries go. A counter that
   * lost the call's change with its journal (Redis lost its data) and was seeded again counts the charge only if its
   * seed did not include it already: `chargedAt` says where the charge is in the store (null: not known yet).
   */
  settle(
    journal: CounterJournal | null,
    changes: readonly SettledChange[],
    chargedAt: () => Promise<Position | null>,
  ): Promise<void>;
}

/** A fixed rate-limit window shared by every node: `points` calls per `seconds` at `key`. */
export interface RateLimitWindow {
  readonly key: string;
  readonly points: number;
  readonly seconds: number;
}

/** The calls counted in the window so far (this one included) and how long the window has left. */
export interface RateLimitCount {
  readonly consumed: number;
  readonly msBeforeNext: number;
}

/** The journal field of one call's changes to one counter. */
export const journalField = (call: string, counterKey: string) => `${call}|${counterKey}`;

export const CREDIT_COUNTERS = Symbol('CREDIT_COUNTERS');

/** Counters live through the month they count plus a margin; the read models keep the history. */
export const COUNTER_TTL_SECONDS = 40 * 86400;
