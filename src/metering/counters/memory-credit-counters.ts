import { type CreditCounters, type Reservation, type Seed, seedValueOf } from './credit-counters.js';

/** Single-process counters; JavaScript runs one callback at a time, so check-and-add is atomic between awaits. */
export class MemoryCreditCounters implements CreditCounters {
  private readonly values = new Map<string, number>();
  private readonly seeding = new Map<string, Promise<number>>();

  async reserve(key: string, amount: number, limit: number, seed: Seed): Promise<Reservation> {
    const used = await this.ensure(key, seed);
    if (used + amount > limit) return { ok: false, used };
    const next = this.values.get(key)! + amount;
    this.values.set(key, next);
    return { ok: true, used: next };
  }

  async adjust(key: string, delta: number): Promise<number | null> {
    const value = this.values.get(key);
    if (value === undefined) return null;
    this.values.set(key, value + delta);
    return value + delta;
  }

  async read(key: string, seed: Seed): Promise<number> {
    return this.ensure(key, seed);
  }

  async increment(key: string, amount: number, seed: Seed): Promise<number> {
    await this.ensure(key, seed);
    const next = this.values.get(key)! + amount;
    this.values.set(key, next);
    return next;
  }

  /** One process: a crash loses these counters with the calls, and they are seeded again from the ledger. */
  async settle(): Promise<void> {}

  private async ensure(key: string, seed: Seed): Promise<number> {
    const value = this.values.get(key);
    if (value !== undefined) return value;
    let pending = this.seeding.get(key);
    if (!pending) {
      pending = seed()
        .then((seeded) => seedValueOf(seeded).value)
        .finally(() => this.seeding.delete(key));
      this.seeding.set(key, pending);
    }
    const seeded = await pending;
    if (!this.values.has(key)) this.values.set(key, seeded);
    return this.values.get(key)!;
  }
}
