import { type From, type Position, START, comparePositions, isAtOrAfter } from '../event-store.port.js';

interface PendingSignal {
  /** Number of consumed records after which the signal takes effect. */
  readonly at: number;
  readonly live: boolean;
}

/**
 * Whether a catch-up subscription has delivered everything that was stored, as seen by its consumer.
 *
 * The client emits `caughtUp` / `fellBehind` (servers 23.10+) when the server's message arrives, while the records
 * before it may still sit unread in the subscription's buffer; the signal only counts once those are consumed.
 * Servers without these messages are covered by the head read before subscribing: once a record at or past it is
 * consumed, the past has been delivered.
 */
export class CatchUpTracker {
  private consumedCount = 0;
  private pending: PendingSignal[] = [];
  private headReached: boolean;
  private isLive: boolean;

  constructor(
    private readonly head: From,
    from: From,
  ) {
    this.headReached = head === START || isAtOrAfter(from, head);
    this.isLive = this.headReached;
  }

  get live(): boolean {
    return this.isLive;
  }

  /** A server signal, emitted while `buffered` earlier records were still unread. */
  signal(live: boolean, buffered: number): void {
    this.pending.push({ at: this.consumedCount + buffered, live });
    this.applyDueSignals();
  }

  /** One record taken from the subscription (`position` undefined for a record without an event). */
  consumed(position: Position | undefined): void {
    this.consumedCount += 1;
    if (!this.headReached && position && this.head !== START && comparePositions(position, this.head) >= 0) {
      this.headReached = true;
      this.isLive = true;
    }
    this.applyDueSignals();
  }

  private applyDueSignals(): void {
    while (this.pending.length > 0 && this.pending[0]!.at <= this.consumedCount) {
      this.isLive = this.pending.shift()!.live;
    }
  }
}
