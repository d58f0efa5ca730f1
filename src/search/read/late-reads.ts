/** Why a late read was stopped: the page took too long, a failure of its own (unlike a search's deadline). */
export class LateReadTimeout extends Error {
  constructor(ms: number) {
    super(`not read within ${ms} ms after the deadline`);
    this.name = 'LateReadTimeout';
  }
}

/**
 * Page reads that go on after their search's deadline, so that a page that was merely slow is in the page cache for
 * the next search (and one that fails is remembered as failed). They are bounded across all searches: past
 * `capacity`, a read still going at its deadline is stopped there; an admitted read is stopped `limitMs` after it
 * (with a LateReadTimeout), so that hanging hosts do not hold the room. A URL being read late is slow right now:
 * another search does not wait for it (nor read it twice).
 */
export class LateReads {
  private readonly reading = new Map<string, number>();

  constructor(
    readonly capacity: number,
    readonly limitMs: number,
  ) {}

  /**
   * Lets the read of `url` go on in the background when there is room (true; `stop` ends it after limitMs), else
   * leaves it to be stopped (false).
   */
  admit(url: string, read: Promise<unknown>, stop: AbortController): boolean {
    if (this.inFlight >= this.capacity) return false;
    this.reading.set(url, (this.reading.get(url) ?? 0) + 1);
    const timer = setTimeout(() => stop.abort(new LateReadTimeout(this.limitMs)), this.limitMs);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      const left = (this.reading.get(url) ?? 1) - 1;
      if (left > 0) this.reading.set(url, left);
      else this.reading.delete(url);
    };
    void read.then(done, done);
    return true;
  }

  /** Whether a read of `url` is going on past its search's deadline. */
  has(url: string): boolean {
    return this.reading.has(url);
  }

  get inFlight(): number {
    let count = 0;
    for (const n of this.reading.values()) count += n;
    return count;
  }
}
