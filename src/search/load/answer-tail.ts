/** What the ranking, the answer and the response need after the reading at least: taken from the answer budget. */
export const MIN_ANSWER_RESERVE_MS = 150;
/**
 * Until it has seen FIRST_SAMPLES answers, a node keeps this much: its first searches are its slowest (code not yet
 * compiled, connections being opened), and they come all at once when a node starts under load.
 */
export const FIRST_RESERVE_MS = 500;
const FIRST_SAMPLES = 5;
/** The answers looked at: the latest this many. */
const SAMPLES = 50;
/** The reserve covers this share of them. */
const QUANTILE = 0.9;

/**
 * How long this node's searches take from the end of their reading to their response: the ranking, the metering
 * (the charge recorded before the answer), the response's writing. A search ends its reading that long before its
 * budget, so that its answer comes within it: under load (a busy event loop, a database that runs one statement at a
 * time) the tail grows from the 150 ms an idle node needs, and the reading gives way to it, not the deadline.
 */
export class AnswerTail {
  private readonly samples: number[] = [];
  private next = 0;
  private seen = 0;
  private reserve = FIRST_RESERVE_MS;

  /** One search's time from the end of its reading to its response, in ms. */
  observe(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    this.samples[this.next] = ms;
    this.next = (this.next + 1) % SAMPLES;
    if (++this.seen < FIRST_SAMPLES) return;
    const sorted = [...this.samples].sort((a, b) => a - b);
    const quantile = sorted[Math.min(sorted.length - 1, Math.floor(QUANTILE * sorted.length))]!;
    this.reserve = Math.max(MIN_ANSWER_RESERVE_MS, Math.ceil(quantile));
  }

  /**
   * The time to keep for after the reading, in ms: the 90th percentile of the latest 50 tails, at least 150 ms (500 ms
   * before the first 5).
   */
  get reserveMs(): number {
    return this.reserve;
  }
}
