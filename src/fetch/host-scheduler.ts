export interface HostSchedulerOptions {
  /** Tasks in flight at one host at once. Default 4. */
  readonly maxConcurrentPerHost?: number;
  /** Least time between the starts of two tasks at one host, in ms. Default 0. */
  readonly delayMs?: number;
  /**
   * Tasks in flight at one host, for the hosts this names (by host name, no port); null: maxConcurrentPerHost.
   * For hosts the operator runs (FETCH_OWNED_HOST_CONCURRENCY for the hosts of FETCH_ALLOW_HOSTS).
   */
  readonly concurrencyFor?: (hostname: string) => number | null;
}

export interface ScheduleOptions {
  /** Spacing for this host (e.g. the robots.txt crawl-delay); the larger of this and the default applies. */
  readonly delayMs?: number;
  /** Gives up waiting for a slot (the task is not started); the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

interface Waiter {
  readonly start: () => void;
  readonly delayMs: number;
}

interface HostState {
  readonly maxConcurrent: number;
  inFlight: number;
  lastStart: number;
  delayMs: number;
  readonly queue: Waiter[];
  timer: NodeJS.Timeout | undefined;
}

/**
 * Per-host politeness for map and crawl: at most N tasks in flight at one host, and starts at one host spaced by a
 * delay. A host is a URL's `host` (name and port). Tasks wait in FIFO order.
 */
export class HostScheduler {
  private readonly hosts = new Map<string, HostState>();
  private readonly maxConcurrent: number;
  private readonly defaultDelayMs: number;
  private readonly concurrencyFor: ((hostname: string) => number | null) | undefined;
  private readonly totals = { tasks: 0, waitSeconds: 0 };

  constructor(options: HostSchedulerOptions = {}) {
    this.maxConcurrent = Math.max(1, options.maxConcurrentPerHost ?? 4);
    this.defaultDelayMs = Math.max(0, options.delayMs ?? 0);
    this.concurrencyFor = options.concurrencyFor;
  }

  /** Runs `task` once `url`'s host has a free slot and its delay has passed; resolves or rejects as the task does. */
  run<T>(url: string, task: () => Promise<T>, options: ScheduleOptions = {}): Promise<T> {
    const key = hostKey(url);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const state = this.state(key, url);
    const asked = performance.now();
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        const index = state.queue.indexOf(waiter);
        if (index >= 0) state.queue.splice(index, 1);
        reject(signal?.reason as Error);
        this.pump(key, state);
      };
      const waiter: Waiter = {
        delayMs: Math.max(this.defaultDelayMs, options.delayMs ?? 0),
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.totals.tasks++;
          this.totals.waitSeconds += (performance.now() - asked) / 1000;
          state.inFlight += 1;
          state.lastStart = Date.now();
          Promise.resolve()
            .then(() => {
              // Spaced from when the task really starts: a stall before this microtask (GC, a busy loop) must not
              // eat into the next task's delay.
              state.lastStart = Math.max(state.lastStart, Date.now());
              return task();
            })
            .then(resolve, reject)
            .finally(() => {
              state.inFlight -= 1;
              this.pump(key, state);
            });
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      state.queue.push(waiter);
      state.timer?.ref();
      this.pump(key, state);
    });
  }

  /** Since the start: tasks started, and their time waiting for a slot and their host's delay (for metrics). */
  get stats(): { readonly tasks: number; readonly waitSeconds: number } {
    return { ...this.totals };
  }

  /** Tasks in flight at `url`'s host (for tests and metrics). */
  inFlight(url: string): number {
    return this.hosts.get(hostKey(url))?.inFlight ?? 0;
  }

  private state(key: string, url: string): HostState {
    let state = this.hosts.get(key);
    if (!state) {
      const own = this.concurrencyFor?.(hostnameOf(url)) ?? null;
      const maxConcurrent = own === null ? this.maxConcurrent : Math.max(1, own);
      state = { maxConcurrent, inFlight: 0, lastStart: 0, delayMs: 0, queue: [], timer: undefined };
      this.hosts.set(key, state);
    }
    return state;
  }

  private pump(key: string, state: HostState): void {
    if (state.timer) return;
    while (state.queue.length > 0 && state.inFlight < state.maxConcurrent) {
      const next = state.queue[0]!;
      state.delayMs = next.delayMs;
      const wait = state.lastStart + next.delayMs - Date.now();
      if (state.lastStart > 0 && wait > 0) {
        state.timer = setTimeout(() => {
          state.timer = undefined;
          this.pump(key, state);
        }, wait);
        return;
      }
      state.queue.shift();
      next.start();
    }
    if (state.inFlight === 0 && state.queue.length === 0) this.forgetWhenIdle(key, state);
  }

  /** Drops an idle host once its delay has passed (so the map does not grow with every host ever seen). */
  private forgetWhenIdle(key: string, state: HostState): void {
    const remaining = state.lastStart + state.delayMs - Date.now();
    if (remaining <= 0) {
      this.hosts.delete(key);
      return;
    }
    state.timer = setTimeout(() => {
      state.timer = undefined;
      if (state.inFlight === 0 && state.queue.length === 0) this.hosts.delete(key);
      else this.pump(key, state);
    }, remaining);
    state.timer.unref();
  }
}

function hostnameOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

function hostKey(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return url;
  }
}
