import { performance } from 'node:perf_hooks';

/** The reason a search's deadline signal aborts with: its answer budget is spent. */
export class SearchBudgetSpent extends Error {
  constructor(readonly budgetMs: number) {
    super(`the search's time budget of ${budgetMs / 1000} s is spent`);
    this.name = 'SearchBudgetSpent';
  }
}

/** What the ranking, the answer and the response need after the reading: taken from the answer budget. */
export const RANKING_RESERVE_MS = 150;

/**
 * A search's deadline, counted from the request's arrival (SearchAdmission), not from when its work began: time
 * spent queued (the event loop, the database pool, the metering pipeline) is spent from the same budget. The engines
 * are asked, and the pages read, until the budget less RANKING_RESERVE_MS; `signal` aborts then.
 */
export class SearchDeadline {
  readonly signal: AbortSignal;
  /** performance.now() at which the engines and the reading must have ended. */
  readonly workEndsAt: number;

  constructor(arrivedAt: number, answerBudgetMs: number) {
    this.workEndsAt = arrivedAt + answerBudgetMs - RANKING_RESERVE_MS;
    const controller = new AbortController();
    const spent = () => controller.abort(new SearchBudgetSpent(answerBudgetMs));
    const left = Math.ceil(this.workEndsAt - performance.now());
    if (left <= 0) spent();
    else setTimeout(spent, left).unref();
    this.signal = controller.signal;
  }

  /** Milliseconds left for the engines and the reading (0 once past). */
  remainingMs(): number {
    return Math.max(0, this.workEndsAt - performance.now());
  }

  get passed(): boolean {
    return this.signal.aborted;
  }
}
