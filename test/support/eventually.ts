export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` until `accept` holds and returns that value; a probe that throws is tried again. Throws with `what`
 * and the last value (or error) after `timeoutMs`.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T> | T,
  accept: (value: T) => boolean,
  timeoutMs = 15_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let failure: unknown;
  for (;;) {
    try {
      last = await probe();
      failure = undefined;
      if (accept(last)) return last;
    } catch (error) {
      failure = error;
    }
    if (Date.now() > deadline) {
      const detail = failure ? String(failure) : JSON.stringify(last);
      throw new Error(`${what}: not within ${timeoutMs} ms (last: ${detail})`);
    }
    await sleep(everyMs);
  }
}
