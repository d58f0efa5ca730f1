/** A late answer lowers the limit to this share of itself. */
const DECREASE = 0.75;
/**
 * After a decrease, late answers do not lower the limit again for this long: the searches admitted before it are still
 * finishing, late for the same reason (one basic budget is enough to see the effect of the last change start).
 */
const DECREASE_COOLDOWN_MS = 1_500;
/** The answers looked at: a decrease needs at least LATE_TO_DECREASE late ones among the last this many. */
const WINDOW = 20;
/** One late answer alone (a pause of the collector, one slow page) is not the node's load. */
const LATE_TO_DECREASE = 2;

/**
 * How many searches a node holds at once, learnt from whether they answer within their budget, as TCP's congestion
 * window is. It starts at `initial` and, in slow start, grows by one for each answer on time, until the first decrease
 * (or the ceiling); from then on (additive increase, multiplicative decrease) an answer on time raises it by 1/limit
 * (by one for each limit's worth of answers on time), and a late one, with another among the last 20 answers, lowers
 * it to three quarters, at most once per cooldown. Only answers to searches admitted while the limit was in use (at
 * least half of it held) raise it: a node that has only ever held a few searches at once has not shown it can answer
 * many in time (as TCP's window validation, RFC 7661). It stays between `floor` and `ceiling` (SEARCH_MAX_IN_FLIGHT).
 * A node that answers late because it is short of CPU admits fewer searches, so the ones it admits answer in time and
 * the others are refused at once; a fresh node does not take a burst of `ceiling` searches before any answer has told
 * it what it can hold.
 */
export class AdaptiveLimit {
  private value: number;
  private slowStart: boolean;
  private lastDecreaseAt = -Infinity;
  /** The last WINDOW answers, true for a late one (a ring). */
  private readonly recent: boolean[] = [];
  private next = 0;

  constructor(
    private readonly ceiling: number,
    private readonly floor: number,
    initial = ceiling,
  ) {
    this.value = Math.min(ceiling, Math.max(floor, initial));
    this.slowStart = this.value < ceiling;
  }

  /** Searches that may be held now. */
  get current(): number {
    return Math.floor(this.value);
  }

  /** `inUse`: the search was admitted while at least half the limit was held (see usedAt). */
  onTime(inUse = true): void {
    this.remember(false);
    if (!inUse) return;
    const step = this.slowStart ? 1 : 1 / Math.max(1, this.value);
    this.value = Math.min(this.ceiling, this.value + step);
  }

  /** Whether `held` searches (the one just admitted included) use the limit: at least half of it. */
  usedAt(held: number): boolean {
    return 2 * held >= this.current;
  }

  /** `now`: performance.now(). */
  late(now: number): void {
    this.remember(true);
    if (this.recent.filter(Boolean).length < LATE_TO_DECREASE) return;
    if (now - this.lastDecreaseAt < DECREASE_COOLDOWN_MS) return;
    this.lastDecreaseAt = now;
    this.slowStart = false;
    this.value = Math.max(this.floor, this.value * DECREASE);
  }

  private remember(late: boolean): void {
    this.recent[this.next] = late;
    this.next = (this.next + 1) % WINDOW;
  }
}
