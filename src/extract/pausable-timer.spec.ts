import { PausableTimer } from './pausable-timer.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PausableTimer', () => {
  test('expires after its time; a pause does not count', async () => {
    let expiredAt = 0;
    const started = Date.now();
    const timer = new PausableTimer(100, () => (expiredAt = Date.now()));
    await sleep(50);
    timer.pause();
    await sleep(150);
    expect(expiredAt).toBe(0);
    timer.resume();
    timer.resume();
    await sleep(30);
    expect(expiredAt).toBe(0);
    await sleep(60);
    expect(expiredAt).toBeGreaterThan(0);
    // About 100 ms of running time and 150 of pause.
    expect(expiredAt - started).toBeGreaterThanOrEqual(240);
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
