import type { PageReader, ReadPage } from './page-reader.port.js';
import { HostTurns } from './host-turns.js';
import type { LateReads } from './late-reads.js';
import { READS_PER_HOST } from './read-plan.js';

export interface PagesRead {
  /** By the URL asked for: the pages read in time. */
  readonly pages: ReadonlyMap<string, ReadPage>;
  /** By the URL asked for: why a page was not read before the deadline (an error message). */
  readonly failures: ReadonlyMap<string, string>;
  /** The URLs still being read at the deadline. */
  readonly late: ReadonlySet<string>;
}

/**
 * Reads `urls` at once (READS_PER_HOST at a time per host) under one deadline, `budgetMs` from now: what has not been
 * read by then is given up (the answer never waits for a hanging host, even one whose read ignored its signal). A
 * read that has started goes on in the background when `lateReads` has room (its page then reaches the page cache
 * for the next search), else its signal aborts at the deadline; a read still waiting for its turn never starts. A
 * failed read is only a missing page.
 */
export async function readPages(
  urls: readonly string[],
  reader: PageReader,
  budgetMs: number,
  /** Ends the reading early when any of them aborts (the caller gone, or enough read). */
  caller?: AbortSignal | readonly AbortSignal[],
  /** Told of each page as soon as it has been read in time (so that its analysis overlaps the other reads). */
  onPage?: (url: string, page: ReadPage) => void,
  lateReads?: LateReads,
): Promise<PagesRead> {
  const pages = new Map<string, ReadPage>();
  const failures = new Map<string, string>();
  if (urls.length === 0) return { pages, failures, late: new Set() };
  const reason = () => new Error(`not read within ${budgetMs} ms`);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(reason()), budgetMs);
  const callers: readonly AbortSignal[] =
    caller === undefined ? [] : caller instanceof AbortSignal ? [caller] : (caller as readonly AbortSignal[]);
  const onCallerAbort = () => deadline.abort(callers.find((c) => c.aborted)?.reason);
  if (callers.some((c) => c.aborted)) onCallerAbort();
  else for (const c of callers) c.addEventListener('abort', onCallerAbort, { once: true });
  const { signal } = deadline;
  const turns = new HostTurns(READS_PER_HOST);
  /** Reads started and not yet ended, each with the controller that stops it. */
  const running = new Map<Promise<ReadPage>, { url: string; stop: AbortController }>();
  const start = (url: string) => {
    const stop = new AbortController();
    const read = reader.read(url, stop.signal);
    running.set(read, { url, stop });
    const forget = () => running.delete(read);
    read.then(forget, forget);
    return read;
  };
  const reads = urls.map((url) =>
    turns
      .run(url, signal, () => start(url))
      .then(
        (page) => {
          if (signal.aborted) return;
          pages.set(url, page);
          onPage?.(url, page);
        },
        (error: unknown) => {
          if (!signal.aborted) failures.set(url, error instanceof Error ? error.message : String(error));
        },
      ),
  );
  const ended = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  try {
    await Promise.race([Promise.all(reads), ended]);
  } finally {
    clearTimeout(timer);
    for (const c of callers) c.removeEventListener('abort', onCallerAbort);
    // Waiting reads never start; anything that arrives from now on is ignored here.
    deadline.abort(reason());
    for (const [read, { url, stop }] of running) if (!lateReads?.admit(url, read, stop)) stop.abort(reason());
  }
  const late = new Set(urls.filter((url) => !pages.has(url) && !failures.has(url)));
  return { pages: new Map(pages), failures: new Map(failures), late };
}
