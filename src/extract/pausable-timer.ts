/**
 * A timeout that can stop counting for a while: a page's time limit, which does not run while the page waits for a
 * thread of the extraction pool. `expire` is called once the running time adds up to `ms`.
 */
export class PausableTimer {
  private timer: NodeJS.Timeout | undefined;
  private endsAt: number;
  /** Time left while paused; null while running. */
  private left: number | null = null;
  private done = false;

  constructor(
    ms: number,
    private readonly expire: () => void,
  ) {
    this.endsAt = Date.now() + ms;
    this.timer = setTimeout(() => this.fire(), ms);
  }

  pause(): void {
    if (this.left !== null || this.done) return;
    clearTimeout(this.timer);
    this.left = Math.max(0, this.endsAt - Date.now());
  }

  resume(): void {
    if (this.left === null || this.done) return;
    this.endsAt = Date.now() + this.left;
    this.timer = setTimeout(() => this.fire(), this.left);
    this.left = null;
  }

  clear(): void {
    this.done = true;
    clearTimeout(this.timer);
  }

  private fire(): void {
    if (this.done) return;
    this.done = true;
    this.expire();
  }
}
