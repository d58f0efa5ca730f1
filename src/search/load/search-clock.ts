import { performance } from 'node:perf_hooks';

/**
 * A search's times (performance.now()): its arrival, from which its answer budget counts, and the end of its work
 * bounded by the deadline (the engines and the reading), after which only the ranking, the metering and the response
 * remain (AnswerTail learns how long those take).
 */
export class SearchClock {
  private ended: number | null = null;

  constructor(readonly arrivedAt = performance.now()) {}

  /** When the work bounded by the deadline ended; null while it goes on, or for a search that had none. */
  get workEndedAt(): number | null {
    return this.ended;
  }

  /** The engines have answered and the reading is over (the first call counts). */
  workEnded(): void {
    this.ended ??= performance.now();
  }
}
