/** `work`, or a rejection with the signal's reason as soon as it aborts (whatever `work` does meanwhile). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

/**
 * `work`, or null as soon as the signal aborts (whatever `work` does meanwhile): for work whose end no longer matters
 * once its run is over. A rejection of `work` before that still rejects.
 */
export function nullWhenAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | null> {
  return untilAborted(work, signal).catch((error: unknown) => {
    if (signal.aborted) return null;
    throw error;
  });
}
