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

  async reserve(key: string, amount: number, limit: number, seed: Seed): Promise<Reservation> {
    await this.load(key, seed);
    const used = this.current(key);
    if (used + amount > limit) return { ok: false, used };
    this.values.set(key, used + amount);
    return { ok: true, used: used + amount };
  }

  async adjust(key: string, delta: number): Promise<number | null> {
    const value = this.values.get(key);
    if (value === undefined) return null;
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
      pending = seed()
        .then((seeded) => {
          if (!this.values.has(key)) this.values.set(key, seedValueOf(seeded).value);
        })
        .finally(() => this.seeding.delete(key));
      this.seeding.set(key, pending);
    }
    await pending;
  }

  /** The value now, read in the same synchronous step as the change that follows it. */
  private current(key: string): number {
    const value = this.values.get(key);
    if (value === undefined) throw new Error(`counter ${key} is not loaded`);
    return value;
  }
}
