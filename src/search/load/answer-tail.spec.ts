import { performance } from 'node:perf_hooks';
import { AnswerTail, FIRST_RESERVE_MS, MIN_ANSWER_RESERVE_MS } from './answer-tail.js';
import { SearchClock } from './search-clock.js';
import { SearchDeadline } from './search-deadline.js';

describe('AnswerTail', () => {
  test('a fresh node keeps 500 ms until its fifth answer', () => {
    const tail = new AnswerTail();
    expect(tail.reserveMs).toBe(FIRST_RESERVE_MS);
    for (let i = 0; i < 4; i++) tail.observe(40);
    expect(tail.reserveMs).toBe(500);
    tail.observe(40);
    expect(tail.reserveMs).toBe(MIN_ANSWER_RESERVE_MS);
  });

  test('an idle node keeps 150 ms; the reserve is the 90th percentile of the latest 50 tails', () => {
    const tail = new AnswerTail();
    for (let i = 0; i < 50; i++) tail.observe(40);
    expect(tail.reserveMs).toBe(150);
    // Six of the latest 50 take 600 ms: more than a tenth, so the reserve covers them.
    for (let i = 0; i < 6; i++) tail.observe(600);
    expect(tail.reserveMs).toBe(600);
    // Four of them would be under a tenth: the reserve does not follow a few stragglers.
    const few = new AnswerTail();
    for (let i = 0; i < 46; i++) few.observe(40);
    for (let i = 0; i < 4; i++) few.observe(600);
    expect(few.reserveMs).toBe(150);
  });

  test('it forgets: 50 short tails after a burst of long ones bring it back down', () => {
    const tail = new AnswerTail();
    for (let i = 0; i < 50; i++) tail.observe(900);
    expect(tail.reserveMs).toBe(900);
    for (let i = 0; i < 50; i++) tail.observe(100);
    expect(tail.reserveMs).toBe(150);
  });

  test('a sample that is not a duration is ignored', () => {
    const tail = new AnswerTail();
    for (let i = 0; i < 5; i++) tail.observe(10);
    tail.observe(Number.NaN);
    tail.observe(-5);
    tail.observe(Infinity);
    expect(tail.reserveMs).toBe(150);
  });
});

describe('SearchDeadline', () => {
  test('the reading ends the budget less the reserve after arrival, keeping at most a third of the budget', () => {
    const clock = new SearchClock(performance.now());
    expect(new SearchDeadline(clock, 1500).workEndsAt).toBe(clock.arrivedAt + 1350);
    expect(new SearchDeadline(clock, 1500, 400).workEndsAt).toBe(clock.arrivedAt + 1100);
    expect(new SearchDeadline(clock, 1500, 2000).workEndsAt).toBe(clock.arrivedAt + 1000);
    expect(new SearchDeadline(clock, 1500, 20).workEndsAt).toBe(clock.arrivedAt + 1350);
  });

  test('the engines are waited for until the budget less 150 ms, whatever the reserve', async () => {
    const deadline = new SearchDeadline(new SearchClock(performance.now() - 1_300), 1500, 500);
    expect(deadline.remainingMs()).toBe(0);
    expect(deadline.passed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(deadline.passed).toBe(true);
  });

  test('workEnded marks the clock once', async () => {
    const clock = new SearchClock();
    const deadline = new SearchDeadline(clock, 1500);
    expect(clock.workEndedAt).toBeNull();
    deadline.workEnded();
    const first = clock.workEndedAt;
    await new Promise((resolve) => setTimeout(resolve, 5));
    deadline.workEnded();
    expect(clock.workEndedAt).toBe(first);
  });
});
