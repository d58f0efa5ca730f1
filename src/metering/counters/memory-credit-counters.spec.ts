import { describeCreditCountersContract } from './credit-counters.contract.js';
import { MemoryCreditCounters } from './memory-credit-counters.js';

describeCreditCountersContract('in memory (embedded mode)', async () => ({
  prefix: 'contract:',
  start: async () => new MemoryCreditCounters(),
  cleanup: async () => {},
}));
