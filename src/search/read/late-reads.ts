/**
 * Page reads that go on after their search's deadline, so that a page that was merely slow is in the page cache for
 * the next search (and one that fails is remembered as failed). They are bounded across all searches: past
 * `capacity`, a read still going at its deadline is stopped there. A URL being read late is slow right now: another
 * search does not wait for it (nor read it twice).
 */
export class LateReads {
  private readonly reading = new Map<string, number>();

  constructor(readonly capacity: number) {}

  /** Lets the read of `url` go on in the background when there is room (true), else leaves it to be stopped. */
  admit(url: string, read: Promise<unknown>): boolean {
    if (this.inFlight >= this.capacity) return false;
    this.reading.set(url, (this.reading.get(url) ?? 0) + 1);
    const done = () => {
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
