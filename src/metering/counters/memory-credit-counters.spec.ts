import type { Seed } from './credit-counters.js';
import { describeCreditCountersContract } from './credit-counters.contract.js';
import { MemoryCreditCounters } from './memory-credit-counters.js';

describeCreditCountersContract('in memory (embedded mode)', async () => ({
  prefix: 'contract:',
  start: async () => new MemoryCreditCounters(),
  cleanup: async () => {},
}));

describe('in-memory counters after a restart', () => {
  const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  test('a charge added while the counter is being loaded is not lost: the seed is read again', async () => {
    const counters = new MemoryCreditCounters();
    // The ledger, as a seed reads it when the read starts.
    let ledger = 10;
    const seed: Seed = async () => {
      const value = ledger;
      await delay(30);
      return value;
    };
    const loading = counters.read('quota', seed);
    const reserving = counters.reserve('quota', 1, 15, seed);
    await delay(5);
    // A deferred call reserved before the restart is charged now (the ledger has it), while the seed is read.
    ledger += 5;
    expect(await counters.adjust('quota', 5)).toBeNull();
    expect(await loading).toBe(15);
    expect(await reserving).toEqual({ ok: false, used: 15 });
  });
});
