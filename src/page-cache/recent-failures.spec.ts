import { describeFailureMemoryContract } from './failure-memory.contract.js';
import { RecentFailures } from './recent-failures.js';

describeFailureMemoryContract('in process', () =>
  Promise.resolve({
    start: () => Promise.resolve(new RecentFailures()),
    settled: () => Promise.resolve(),
    shared: false,
    cleanup: () => Promise.resolve(),
  }),
);
