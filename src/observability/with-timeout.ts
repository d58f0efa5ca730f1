export class TimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`timed out after ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

/** `work`, or a TimeoutError after `ms` (the work itself is not cancelled; its late outcome is ignored). */
export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(ms)), ms);
    timer.unref();
  });
  work.catch(() => {}); // a late rejection after the timeout is not an unhandled rejection
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
