import { performance } from 'node:perf_hooks';
import { MIN_ANSWER_RESERVE_MS } from './answer-tail.js';
import type { SearchClock } from './search-clock.js';

/** The reason a search's deadline signal aborts with: its answer budget is spent. */
export class SearchBudgetSpent extends Error {
  constructor(readonly budgetMs: number) {
    super(`the search's time budget of ${budgetMs / 1000} s is spent`);
    this.name = 'SearchBudgetSpent';
  }
}

/** The most of a budget kept for after the reading, however long the node's answers take then. */
const MAX_RESERVE_SHARE = 1 / 3;

/**
 * A search's deadline, counted from the request's arrival (SearchAdmission), not from when its work began: time
 * spent queued (the event loop, the database pool, the metering pipeline) is spent from the same budget. The engines
 * are waited for until the budget less 150 ms (`signal` aborts then: a provider that has not answered is left out);
 * the pages are read until the budget less the reserve for what follows the reading (the node's AnswerTail: at least
 * 150 ms, at most a third of the budget). An engine slow to answer thus costs the reading, not the answer: its
 * snippets are shown.
 */
export class SearchDeadline {
  readonly signal: AbortSignal;
  /** performance.now() at which the engines must have answered. */
  readonly enginesEndAt: number;
  /** performance.now() at which the reading must have ended. */
  readonly workEndsAt: number;

  constructor(
    private readonly clock: SearchClock,
    answerBudgetMs: number,
    reserveMs = MIN_ANSWER_RESERVE_MS,
  ) {
    const reserve = Math.min(Math.max(MIN_ANSWER_RESERVE_MS, reserveMs), answerBudgetMs * MAX_RESERVE_SHARE);
    this.enginesEndAt = clock.arrivedAt + answerBudgetMs - MIN_ANSWER_RESERVE_MS;
    this.workEndsAt = Math.min(this.enginesEndAt, clock.arrivedAt + answerBudgetMs - reserve);
    const controller = new AbortController();
    const spent = () => controller.abort(new SearchBudgetSpent(answerBudgetMs));
    const left = Math.ceil(this.enginesEndAt - performance.now());
    if (left <= 0) spent();
    else setTimeout(spent, left).unref();
    this.signal = controller.signal;
  }

  /** Milliseconds left for the reading (0 once past). */
  remainingMs(): number {
    return Math.max(0, this.workEndsAt - performance.now());
  }

  /** The engines' time is over: none may be asked any more. */
  get passed(): boolean {
    return this.signal.aborted;
  }

  /** The engines have answered and the reading is over: the rest is the answer's tail (SearchClock). */
  workEnded(): void {
    this.clock.workEnded();
  }
}
