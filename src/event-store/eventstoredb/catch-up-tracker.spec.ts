import { START } from '../event-store.port.js';
import { CatchUpTracker } from './catch-up-tracker.js';

const p = (n: bigint) => ({ commit: n, prepare: n });

describe('CatchUpTracker', () => {
  test('an empty store is caught up at once', () => {
    expect(new CatchUpTracker(START, START).live).toBe(true);
  });

  test('starting at or after the head is caught up at once', () => {
    expect(new CatchUpTracker(p(50n), p(50n)).live).toBe(true);
    expect(new CatchUpTracker(p(50n), p(60n)).live).toBe(true);
    expect(new CatchUpTracker(p(50n), p(40n)).live).toBe(false);
    expect(new CatchUpTracker(p(50n), START).live).toBe(false);
  });

  test('without server signals, consuming a record at or past the head catches up', () => {
    const tracker = new CatchUpTracker(p(30n), START);
    tracker.consumed(p(10n));
    tracker.consumed(undefined);
    tracker.consumed(p(20n));
    expect(tracker.live).toBe(false);
    tracker.consumed(p(30n));
    expect(tracker.live).toBe(true);
  });

  test('a caughtUp signal counts only once the records buffered before it are consumed', () => {
    const tracker = new CatchUpTracker(p(1000n), START);
    tracker.signal(true, 2);
    expect(tracker.live).toBe(false);
    tracker.consumed(p(1n));
    expect(tracker.live).toBe(false);
    tracker.consumed(p(2n));
    expect(tracker.live).toBe(true);
  });

  test('a caughtUp signal with nothing buffered counts at once', () => {
    const tracker = new CatchUpTracker(p(1000n), START);
    tracker.signal(true, 0);
    expect(tracker.live).toBe(true);
  });

  test('fellBehind turns it off again, in order with the records, until the next caughtUp', () => {
    const tracker = new CatchUpTracker(START, START);
    tracker.signal(false, 1);
    expect(tracker.live).toBe(true);
    tracker.signal(true, 3);
    tracker.consumed(p(1n));
    expect(tracker.live).toBe(false);
    tracker.consumed(p(2n));
    tracker.consumed(p(3n));
    expect(tracker.live).toBe(true);
  });

  test('the head fallback fires once: a later fellBehind is not undone by old records', () => {
    const tracker = new CatchUpTracker(p(5n), START);
    tracker.consumed(p(5n));
    tracker.signal(false, 0);
    tracker.consumed(p(6n));
    expect(tracker.live).toBe(false);
  });
});
