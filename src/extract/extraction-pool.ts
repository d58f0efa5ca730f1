import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Piscina } from 'piscina';
import { ExtractError } from './content-extractor.port.js';
import type { HtmlTask, HtmlTaskResult } from './extraction-worker.js';
import { type HtmlExtraction, type HtmlOptions, extractHtml } from './html/html-page.js';

export interface ExtractionPoolOptions {
  /** Worker threads; 0 extracts in the caller's thread. Default: the machine's available parallelism. */
  readonly threads?: number;
  /** Tasks handed to the threads at once, per thread, beyond the one each runs. Default 1. */
  readonly queuedPerThread?: number;
  /** The compiled worker module (extraction-worker.js); found beside this module by default. */
  readonly workerFile?: string;
  /** Each thread's heap limits (worker_threads resourceLimits). */
  readonly resourceLimits?: { readonly maxOldGenerationSizeMb?: number; readonly maxYoungGenerationSizeMb?: number };
}

/** Told when a page has to wait for a turn (the pool is full), and when its turn comes. */
export interface QueueListener {
  waiting(): void;
  turn(): void;
}

/**
 * Each thread's JavaScript heap: an old generation big enough for the DOM of the largest page we accept, and a young
 * generation of 48 MB. Parsing makes much short-lived garbage, and a page's DOM lives through the whole extraction:
 * with a smaller nursery (24 MB) more DOMs were promoted and marked in the old generation, and V8's GC threads took
 * a third of the crawl's CPU. Measured on the real docs site (the same busy machine, service alone), against 24 MB:
 * 48 MB took about 5% less CPU for about 40 MB more peak RSS with two threads (383 against 340 MiB), 64 MB 7-14% less
 * for about 145 MB more (490 MiB: as much as crawlee + Readability's lower peaks, 495-620 MiB).
 */
const WORKER_HEAP_LIMITS = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 48 } as const;

/**
 * HTML parsing and extraction (extractHtml) on a pool of worker threads (piscina), so that a crawl or an extract of
 * many URLs uses every core while fetching stays on the main thread. The pool is sized to the machine and started on
 * first use. Its queue is bounded: at most `threads × (1 + queuedPerThread)` pages are handed to the threads at once;
 * further callers wait their turn (in order) with their page, so what waits is bounded by the callers' own
 * concurrency (a crawl holds at most its `concurrency` pages). A task whose signal aborts while it waits is dropped;
 * one that aborts while it runs ends its thread (piscina starts another), so a page that takes too long cannot hold a
 * core. Without the compiled worker module (tests running the TypeScript sources) pages are extracted inline.
 */
export class ExtractionPool implements OnApplicationShutdown {
  private readonly logger = new Logger('ExtractionPool');
  readonly threads: number;
  private readonly capacity: number;
  private readonly workerFile: string | null;
  private readonly resourceLimits: NonNullable<ExtractionPoolOptions['resourceLimits']>;
  private pool: Piscina<HtmlTask, HtmlTaskResult> | null = null;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly totals = { pages: 0, waitSeconds: 0, workSeconds: 0 };
  private closed = false;

  constructor(options: ExtractionPoolOptions = {}) {
    const file = options.workerFile ?? defaultWorkerFile();
    const threads = Math.max(0, Math.floor(options.threads ?? os.availableParallelism()));
    this.workerFile = threads > 0 && file && existsSync(file) ? file : null;
    this.threads = this.workerFile ? threads : 0;
    this.capacity = this.threads * (1 + Math.max(0, options.queuedPerThread ?? 1));
    this.resourceLimits = options.resourceLimits ?? WORKER_HEAP_LIMITS;
  }

  /**
   * extractHtml(html, url, options), on a worker thread when the pool has any. `queue` hears when the page has to wait
   * for its turn and when it gets it (a page's time limit does not run meanwhile).
   */
  async extract(
    html: string,
    url: string,
    options: HtmlOptions,
    signal?: AbortSignal,
    queue?: QueueListener,
  ): Promise<HtmlExtraction> {
    signal?.throwIfAborted();
    if (this.threads === 0 || this.closed) return this.inline(html, url, options);
    const asked = performance.now();
    await this.acquire(signal, queue);
    this.totals.waitSeconds += (performance.now() - asked) / 1000;
    try {
      const result = await this.piscina().run({ html, url, options }, signal ? { signal } : {});
      this.totals.pages++;
      this.totals.workSeconds += result.ms / 1000;
      if (result.ok) return result.page;
      throw result.name === 'ExtractError' ? new ExtractError(result.message, url) : new Error(result.message);
    } catch (error) {
      // piscina reports an aborted task with its own AbortError: the caller's reason says more.
      if (signal?.aborted) throw signal.reason;
      throw error;
    } finally {
      this.release();
    }
  }

  /** Without threads: in the caller's thread, counted all the same. */
  private inline(html: string, url: string, options: HtmlOptions): HtmlExtraction {
    const started = performance.now();
    try {
      return extractHtml(html, url, options);
    } finally {
      this.totals.pages++;
      this.totals.workSeconds += (performance.now() - started) / 1000;
    }
  }

  /**
   * Since the start: pages extracted (on the threads, or inline without any), their time waiting for a thread, and
   * their time being extracted.
   */
  get stats(): { readonly pages: number; readonly waitSeconds: number; readonly workSeconds: number } {
    return { ...this.totals };
  }

  /** Pages being extracted or handed to the threads, and callers waiting for a turn (for tests and metrics). */
  get load(): { readonly active: number; readonly waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = null;
    await pool?.destroy();
  }

  private piscina(): Piscina<HtmlTask, HtmlTaskResult> {
    if (!this.pool) {
      this.pool = new Piscina<HtmlTask, HtmlTaskResult>({
        filename: this.workerFile!,
        minThreads: this.threads,
        maxThreads: this.threads,
        // Our own turn-taking bounds what is handed over; this only guards against a caller that bypasses it.
        maxQueue: this.capacity,
        idleTimeout: 60_000,
        resourceLimits: { ...this.resourceLimits },
      });
      this.pool.on('error', (error: Error) => this.logger.warn(`an extraction thread failed: ${error.message}`));
      this.logger.log(`extracting HTML on ${this.threads} worker thread${this.threads === 1 ? '' : 's'}`);
    }
    return this.pool;
  }

  private acquire(signal?: AbortSignal, queue?: QueueListener): Promise<void> {
    if (this.active < this.capacity) {
      this.active++;
      return Promise.resolve();
    }
    queue?.waiting();
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiting.indexOf(turn);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal!.reason as Error);
      };
      const turn = () => {
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        queue?.turn();
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(turn);
    });
  }

  private release(): void {
    this.active--;
    this.waiting.shift()?.();
  }
}

/** extraction-worker.js beside this module (dist/src/extract/ in a build; absent when running the .ts sources). */
function defaultWorkerFile(): string | null {
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith('.js')) return null;
  return path.join(path.dirname(here), 'extraction-worker.js');
}
