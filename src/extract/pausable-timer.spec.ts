import { PausableTimer } from './pausable-timer.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PausableTimer', () => {
  test('expires after its time; a pause does not count', async () => {
    let expiredAt = 0;
    const started = Date.now();
    const timer = new PausableTimer(400, () => (expiredAt = Date.now()));
    await sleep(100);
    timer.pause();
    await sleep(300);
    expect(expiredAt).toBe(0);
    timer.resume();
    timer.resume();
    await sleep(50);
    // About 250 ms of running time left (wide margins: a busy machine delays timers).
    expect(expiredAt).toBe(0);
    await sleep(800);
    expect(expiredAt).toBeGreaterThan(0);
    // 400 ms of running time and 300 of pause, at least.
    expect(expiredAt - started).toBeGreaterThanOrEqual(700);
  });

  test('cleared, it never expires', async () => {
    let expired = false;
    const timer = new PausableTimer(20, () => (expired = true));
    timer.pause();
    timer.clear();
    timer.resume();
    await sleep(60);
    expect(expired).toBe(false);
  });
});
