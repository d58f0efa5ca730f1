import { randomUUID } from 'node:crypto';
import { billingMonth, counterKeys } from '../counter-keys.js';
import type { CreditCounters, Reservation, Seed } from './credit-counters.js';

export interface CountersContractSubject {
  /** Begins the name of every counter the suite uses (for `cleanup` to find them). */
  readonly prefix: string;
  /**
   * Counters as a node has them when it starts: nothing of this process loaded yet. Each call is a new process over
   * the same shared state (Redis) or over none (in memory, where a restart loses every counter).
   */
  start(): Promise<CreditCounters>;
  cleanup(): Promise<void>;
}

/** What the read models say a missing counter starts from, answered after `delayMs` (a load that takes a while). */
function seedOf(value: number, delayMs = 20): Seed {
  return async () => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return value;
  };
}

const okAmounts = (results: readonly Reservation[], amounts: readonly number[]) =>
  amounts.filter((_, i) => results[i]!.ok);

/**
 * The concurrency behaviour every CreditCounters implementation must have; each implementation's spec calls this
 * once. However many reservations meet a counter at once, whether it is loaded yet or not, the counter never goes
 * past the limit, and every reservation is checked against the value it is added to (none against a stale one).
 */
export function describeCreditCountersContract(name: string, create: () => Promise<CountersContractSubject>): void {
  describe(`CreditCounters contract: ${name}`, () => {
    let subject: CountersContractSubject;
    let counters: CreditCounters;
    const month = billingMonth(new Date());
    const quotaKey = (label: string) =>
      counterKeys.quota({ prefix: subject.prefix, cluster: false }, `${label}-${randomUUID().slice(0, 8)}`, month);

    beforeAll(async () => {
      subject = await create();
    });
    beforeEach(async () => {
      counters = await subject.start();
    });
    afterAll(async () => {
      await subject.cleanup();
    });

    /** N concurrent reservations of `amount`: exactly as many as fit fit, each seeing the value it was added to. */
    async function expectExactlyWhatFits(
      on: CreditCounters,
      key: string,
      seed: Seed,
      start: number,
      limit: number,
    ): Promise<void> {
      const results = await Promise.all(Array.from({ length: 50 }, () => on.reserve(key, 1, limit, seed, null)));
      const fits = limit - start;
      const accepted = results.filter((r) => r.ok);
      expect(accepted).toHaveLength(fits);
      // Linearizable: the accepted calls saw start+1 .. limit, one each; the refused ones a full counter.
      expect(accepted.map((r) => r.used).sort((a, b) => a - b)).toEqual(
        Array.from({ length: fits }, (_, i) => start + i + 1),
      );
      for (const refused of results.filter((r) => !r.ok)) expect(refused.used).toBe(limit);
      expect(await on.read(key, seed)).toBe(limit);
    }

    test.each([0, 19])('a cold counter (seeded at %i): 50 concurrent reservations, only what fits in 20', async (s) => {
      const key = quotaKey('cold');
      await expectExactlyWhatFits(counters, key, seedOf(s), s, 20);
    });

    test('a warm counter: 50 concurrent reservations, only what fits in 20', async () => {
      const key = quotaKey('warm');
      const seed = seedOf(3);
      expect(await counters.read(key, seed)).toBe(3);
      await expectExactlyWhatFits(counters, key, seed, 3, 20);
    });

    test('after a restart, at 19 of 20: 50 concurrent reservations, one fits', async () => {
      const key = quotaKey('restart');
      // Before the restart: 19 credits reserved and charged (the ledger, and so the seed, has them).
      const seed = seedOf(19);
      expect(await counters.reserve(key, 19, 20, seedOf(0), null)).toEqual({ ok: true, used: 19 });
      const restarted = await subject.start();
      await expectExactlyWhatFits(restarted, key, seed, 19, 20);
    });

    test('across a month boundary: each month counts against its own allowance, cold or warm', async () => {
      const [year, number] = month.split('-').map(Number) as [number, number];
      const next = billingMonth(new Date(Date.UTC(year, number, 1)));
      const org = `boundary-${randomUUID().slice(0, 8)}`;
      const ending = counterKeys.quota({ prefix: subject.prefix, cluster: false }, org, month);
      const starting = counterKeys.quota({ prefix: subject.prefix, cluster: false }, org, next);
      expect(await counters.reserve(ending, 18, 20, seedOf(0), null)).toEqual({ ok: true, used: 18 });
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          i % 2 === 0
            ? counters.reserve(ending, 1, 20, seedOf(18), null)
            : counters.reserve(starting, 1, 20, seedOf(0), null),
        ),
      );
      expect(results.filter((r, i) => r.ok && i % 2 === 0)).toHaveLength(2);
      expect(results.filter((r, i) => r.ok && i % 2 === 1)).toHaveLength(20);
      expect(await counters.read(ending, seedOf(18))).toBe(20);
      expect(await counters.read(starting, seedOf(0))).toBe(20);
    });

    test.each(['cold', 'warm'])(
      'mixed prices on a %s counter: never past the limit, no refusal that fits',
      async (state) => {
        const key = quotaKey(`mixed-${state}`);
        const seed = seedOf(2);
        if (state === 'warm') await counters.read(key, seed);
        const amounts = Array.from({ length: 40 }, (_, i) => [1, 2, 5, 3][i % 4]!);
        const results = await Promise.all(amounts.map((amount) => counters.reserve(key, amount, 20, seed, null)));
        const final = await counters.read(key, seed);
        expect(final).toBe(2 + okAmounts(results, amounts).reduce((sum, a) => sum + a, 0));
        expect(final).toBeLessThanOrEqual(20);
        // Reservations only add, so a refusal was right only if it does not fit what the counter ended at either.
        amounts.forEach((amount, i) => {
          if (!results[i]!.ok) expect(final + amount).toBeGreaterThan(20);
        });
        const seen = results.filter((r) => r.ok).map((r) => r.used);
        expect(new Set(seen).size).toBe(seen.length);
        for (const used of seen) expect(used).toBeLessThanOrEqual(20);
      },
    );

    test('reservations given back while others reserve: never past the limit, nothing lost', async () => {
      const key = quotaKey('refunds');
      const seed = seedOf(0);
      for (let i = 0; i < 20; i++) expect((await counters.reserve(key, 1, 20, seed, null)).ok).toBe(true);
      const given = Array.from({ length: 10 }, () => counters.adjust(key, -1));
      const reserved = Array.from({ length: 30 }, () => counters.reserve(key, 1, 20, seed, null));
      const [, results] = await Promise.all([Promise.all(given), Promise.all(reserved)]);
      const accepted = results.filter((r) => r.ok).length;
      expect(accepted).toBeLessThanOrEqual(10);
      for (const r of results) expect(r.used).toBeLessThanOrEqual(20);
      expect(await counters.read(key, seed)).toBe(10 + accepted);
    });

    test('a cold units counter: 30 concurrent increments, each answered with its own running total', async () => {
      const key = counterKeys.units({ prefix: subject.prefix, cluster: false }, randomUUID(), month, 'live', 'crawl');
      const seed = seedOf(7);
      const totals = await Promise.all(Array.from({ length: 30 }, () => counters.increment(key, 2, seed, null)));
      expect([...totals].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => 9 + 2 * i));
      expect(await counters.read(key, seed)).toBe(67);
    });

    test('a seed that fails: the waiting reservations fail, none counted; the next call seeds again', async () => {
      const key = quotaKey('failing-seed');
      const failing: Seed = async () => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        throw new Error('read models unavailable');
      };
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, () => counters.reserve(key, 1, 20, failing, null)),
      );
      expect(results.every((r) => r.status === 'rejected')).toBe(true);
      expect(await counters.adjust(key, 1)).toBeNull();
      await expectExactlyWhatFits(counters, key, seedOf(5), 5, 20);
    });
  });
}
