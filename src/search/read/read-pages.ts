import type { PageReader, ReadPage } from './page-reader.port.js';
import { HostTurns } from './host-turns.js';
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
 * Reads `urls` at once (READS_PER_HOST at a time per host) under one deadline, `budgetMs` from now: every read gets
 * the deadline as its signal, and what has not been read by then is given up (the answer never waits for a hanging
 * host, even one whose read ignored its signal). A failed read is only a missing page.
 */
export async function readPages(
  urls: readonly string[],
  reader: PageReader,
  budgetMs: number,
  caller?: AbortSignal,
  /** Told of each page as soon as it has been read in time (so that its analysis overlaps the other reads). */
  onPage?: (url: string, page: ReadPage) => void,
): Promise<PagesRead> {
  const pages = new Map<string, ReadPage>();
  const failures = new Map<string, string>();
  if (urls.length === 0) return { pages, failures, late: new Set() };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`not read within ${budgetMs} ms`)), budgetMs);
  const onCallerAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) onCallerAbort();
  else caller?.addEventListener('abort', onCallerAbort, { once: true });
  const { signal } = controller;
  const turns = new HostTurns(READS_PER_HOST);
  const reads = urls.map((url) =>
    turns
      .run(url, signal, () => reader.read(url, signal))
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
  const deadline = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  try {
    await Promise.race([Promise.all(reads), deadline]);
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onCallerAbort);
    // Reads still going stop now (and anything that arrives later is ignored).
    controller.abort(new Error(`not read within ${budgetMs} ms`));
  }
  const late = new Set(urls.filter((url) => !pages.has(url) && !failures.has(url)));
  return { pages: new Map(pages), failures: new Map(failures), late };
}
