import { setMaxListeners } from 'node:events';
import type { Fetcher, RobotsPolicy } from '../../fetch/fetcher.port.js';
import type { HostScheduler } from '../../fetch/host-scheduler.js';
import type { RelevanceRanker } from '../relevance.js';
import { FrontierEntries } from './frontier-entries.js';
import type { FrontierPlan } from './frontier-plan.js';
import { SiteAccess } from './site-access.js';

/** Pages visited at once by a run unless its plan says otherwise. */
export const DEFAULT_CONCURRENCY = 8;
const MAX_SIGNAL_LISTENERS = 500;
/** With instructions, a run looks at this many times `limit` pages, then keeps the best `limit`. */
const RANKED_DISCOVERY_FACTOR = 3;
export const MAX_DISCOVERED_PAGES = 3000;

/** What one frontier run shares between its parts: its plan, the pages found, the sites, its time and its tallies. */
export class RunState<P> {
  readonly found: FrontierEntries<P>;
  readonly controller = new AbortController();
  /** The instructions' ranker when they have terms to rank by (best-first run); else null. */
  readonly ranker: RelevanceRanker | null;
  /** The most results the run may hold (more than the limit with instructions: the best are kept). */
  readonly capacity: number;
  readonly site: SiteAccess;
  /** Resolves when the run is aborted (its deadline). */
  readonly aborted: Promise<void>;
  visited = 0;
  failed = 0;
  /** Why the start page could not be visited. */
  startError: unknown = null;
  /** Workers waiting for the pipelined discovery to add pages (or to end). */
  wakers: (() => void)[] = [];

  constructor(
    readonly plan: FrontierPlan,
    fetcher: Fetcher,
    robots: RobotsPolicy,
    scheduler: HostScheduler,
  ) {
    // Every visit in flight listens to the run's signal, several times over (scheduler, fetch, the run itself).
    setMaxListeners(MAX_SIGNAL_LISTENERS, this.controller.signal);
    this.ranker = plan.ranker?.active ? plan.ranker : null;
    this.capacity = this.ranker ? Math.min(plan.limit * RANKED_DISCOVERY_FACTOR, MAX_DISCOVERED_PAGES) : plan.limit;
    this.found = new FrontierEntries(plan.mode, this.capacity, () => this.wake());
    this.aborted = new Promise((resolve) => this.signal.addEventListener('abort', () => resolve(), { once: true }));
    this.site = new SiteAccess(plan, fetcher, robots, scheduler, this.signal);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  wake(): void {
    const wakers = this.wakers;
    this.wakers = [];
    for (const wake of wakers) wake();
  }
}
