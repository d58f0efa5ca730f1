import { nullWhenAborted, untilAborted } from './until-aborted.js';

const never = () => new Promise<string>(() => {});

describe('untilAborted', () => {
  test("rejects with the signal's reason as soon as it aborts", async () => {
    const controller = new AbortController();
    const waiting = untilAborted(never(), controller.signal);
    controller.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
  });

  test("is the work's outcome when it ends first", async () => {
    const signal = new AbortController().signal;
    await expect(untilAborted(Promise.resolve('done'), signal)).resolves.toBe('done');
    await expect(untilAborted(Promise.reject(new Error('failed')), signal)).rejects.toThrow('failed');
  });
});

describe('nullWhenAborted', () => {
  test('null as soon as the signal aborts, or at once when it has', async () => {
    const controller = new AbortController();
    const waiting = nullWhenAborted(never(), controller.signal);
    controller.abort(new Error('deadline'));
    await expect(waiting).resolves.toBeNull();
    await expect(nullWhenAborted(Promise.reject(new Error('late')), controller.signal)).resolves.toBeNull();
  });

  test("is the work's outcome when it ends first, a rejection included", async () => {
    const signal = new AbortController().signal;
    await expect(nullWhenAborted(Promise.resolve('page'), signal)).resolves.toBe('page');
    await expect(nullWhenAborted(Promise.reject(new Error('unreachable')), signal)).rejects.toThrow('unreachable');
  });
});
