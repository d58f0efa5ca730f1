/** After the last foreground work ends, background work waits this long (a request's next statement is on its way). */
const QUIET_MS = 10;

/**
 * Who goes first on a database that runs one statement at a time (embedded mode: PGlite, one backend). Foreground
 * work (a search) marks itself; background work (learning translations, index writes) asks for a turn before each of
 * its statements and gets it only when no foreground work has run for QUIET_MS, so that it never queues ahead of a
 * search: a search waits at most for the one background statement already running. On a server with a backend per
 * connection (services mode) nobody waits.
 */
export class BackendPriority {
  private active = 0;
  private backgroundRunning = 0;
  private lastEnded = -Infinity;
  private readonly waiting = new Set<() => void>();
  private timer: NodeJS.Timeout | null = null;

  constructor(readonly singleBackend: boolean) {}

  async foreground<T>(work: () => Promise<T>): Promise<T> {
    if (!this.singleBackend) return work();
    this.active++;
    try {
      return await work();
    } finally {
      this.active--;
      this.lastEnded = performance.now();
      if (this.active === 0) this.wakeWhenQuiet();
    }
  }

  /**
   * Runs one background statement (or a short run of them) when it may: at once on a backend per connection; else
   * once no foreground work has run for QUIET_MS and no other background work runs, or after `maxWaitMs` (work that
   * must progress under a steady load).
   */
  async background<T>(work: () => Promise<T>, maxWaitMs = Infinity): Promise<T> {
    if (!this.singleBackend) return work();
    if (!this.free()) await this.turn(maxWaitMs);
    this.backgroundRunning++;
    try {
      return await work();
    } finally {
      this.backgroundRunning--;
      this.wakeWhenQuiet();
    }
  }

  private turn(maxWaitMs: number): Promise<void> {
    return new Promise((resolve) => {
      let deadline: NodeJS.Timeout | null = null;
      const go = () => {
        if (deadline) clearTimeout(deadline);
        this.waiting.delete(go);
        resolve();
      };
      this.waiting.add(go);
      if (Number.isFinite(maxWaitMs)) deadline = setTimeout(go, maxWaitMs).unref();
      this.wakeWhenQuiet();
    });
  }

  /** Whether no foreground work runs or has ended within the last `ms` (never any: quiet). */
  quietFor(ms: number): boolean {
    return this.active === 0 && performance.now() - this.lastEnded >= ms;
  }

  private free(): boolean {
    return this.active === 0 && this.backgroundRunning === 0 && performance.now() - this.lastEnded >= QUIET_MS;
  }

  private wakeWhenQuiet(): void {
    if (this.timer || this.waiting.size === 0 || this.active > 0 || this.backgroundRunning > 0) return;
    const left = Math.max(0, QUIET_MS - (performance.now() - this.lastEnded));
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.free()) return this.wakeWhenQuiet();
      // One waiter per turn: the next one is woken when this one's work ends.
      this.waiting.values().next().value?.();
    }, left);
    this.timer.unref();
  }
}
