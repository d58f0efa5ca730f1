import { type CreditCounters, type Reservation, type Seed, seedValueOf } from './credit-counters.js';

/**
 * Single-process counters. JavaScript runs one callback at a time, so a check-and-add is atomic as long as no await
 * separates the check from the add: each operation first waits for its counter to be loaded (`load`), then reads,
 * checks and changes the value in one synchronous step. The value a load resolves with is never used as the current
 * one: by the time a caller resumes, the calls that waited on the same load ahead of it may have changed it.
 */
export class MemoryCreditCounters implements CreditCounters {
  private readonly values = new Map<string, number>();
  private readonly seeding = new Map<string, Promise<void>>();
  /** Counters changed (`adjust`) while their seed was being read: that read may not include the change. */
  private readonly changedWhileSeeding = new Set<string>();

  async reserve(key: string, amount: number, limit: number, seed: Seed): Promise<Reservation> {
    await this.load(key, seed);
    const used = this.current(key);
    if (used + amount > limit) return { ok: false, used };
    this.values.set(key, used + amount);
    return { ok: true, used: used + amount };
  }

  /**
   * A counter not loaded is left to its seed, which includes the change: every change made to a counter that is not
   * loaded is already in the ledger (a charge of a deferred call reserved before a restart); one made while the seed
   * is being read sends the seed to read again.
   */
  async adjust(key: string, delta: number): Promise<number | null> {
    const value = this.values.get(key);
    if (value === undefined) {
      if (this.seeding.has(key)) this.changedWhileSeeding.add(key);
      return null;
    }
    this.values.set(key, value + delta);
    return value + delta;
  }

  async read(key: string, seed: Seed): Promise<number> {
    await this.load(key, seed);
    return this.current(key);
  }

  async increment(key: string, amount: number, seed: Seed): Promise<number> {
    await this.load(key, seed);
    const next = this.current(key) + amount;
    this.values.set(key, next);
    return next;
  }

  /** One process: a crash loses these counters with the calls, and they are seeded again from the ledger. */
  async settle(): Promise<void> {}

  /** The counter at `key` exists once this resolves: seeded once, however many calls wait for it together. */
  private async load(key: string, seed: Seed): Promise<void> {
    if (this.values.has(key)) return;
    let pending = this.seeding.get(key);
    if (!pending) {
      pending = this.seedFresh(key, seed).finally(() => {
        this.seeding.delete(key);
        this.changedWhileSeeding.delete(key);
      });
      this.seeding.set(key, pending);
    }
    await pending;
  }

  /** Reads the seed until no change came while it was read. */
  private async seedFresh(key: string, seed: Seed): Promise<void> {
    for (;;) {
      this.changedWhileSeeding.delete(key);
      const { value } = seedValueOf(await seed());
      if (this.changedWhileSeeding.has(key)) continue;
      if (!this.values.has(key)) this.values.set(key, value);
      return;
    }
  }

  /** The value now, read in the same synchronous step as the change that follows it. */
  private current(key: string): number {
    const value = this.values.get(key);
    if (value === undefined) throw new Error(`counter ${key} is not loaded`);
    return value;
  }
}
