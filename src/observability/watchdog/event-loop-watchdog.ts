import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { type InflightRequest, WatchdogBoard } from './watchdog-board.js';
import type { WatchdogThreadData } from './watchdog-thread.js';

export interface EventLoopWatchdogOptions {
  /** How long the event loop may go without a heartbeat before the watchdog acts, in milliseconds. */
  readonly limitMs: number;
  /** `exit`: log and kill the process (SIGKILL); `log`: only log. */
  readonly action: 'exit' | 'log';
  /** The process logger's level: the watchdog's lines are written at `fatal` (exit), `error` and `warn`. */
  readonly logLevel: string;
  /** Told when the watchdog thread fails (the process then runs unwatched). */
  readonly onError?: (error: Error) => void;
  /** The compiled watchdog-thread.js; found beside this module by default. */
  readonly threadFile?: string;
}

/** What the HTTP layer tells the watchdog: each request's start (its slot) and end. */
export interface InflightRequestTracker {
  enter(request: InflightRequest): number;
  leave(slot: number): void;
}

/**
 * Defence in depth against a wedged event loop (issue 31: a regular expression backtracking for hours froze
 * /healthz, /metrics and SIGTERM alike): the main thread beats on a shared board from a timer, and a worker thread
 * (watchdog-thread.ts) that does not share its event loop checks the beat. The heartbeat runs every tenth of the
 * limit (between 50 ms and 1 s), so a loop that keeps turning is never reported; a blocked one is within the limit
 * plus one beat. Neither the timer nor the thread keeps the process alive.
 */
export class EventLoopWatchdog implements InflightRequestTracker {
  private constructor(
    private readonly board: WatchdogBoard,
    private readonly worker: Worker,
    private readonly heartbeat: NodeJS.Timeout,
  ) {}

  static start(options: EventLoopWatchdogOptions): EventLoopWatchdog {
    const board = WatchdogBoard.create();
    const everyMs = Math.min(1000, Math.max(50, Math.floor(options.limitMs / 10)));
    const workerData: WatchdogThreadData = {
      buffer: board.buffer,
      limitMs: options.limitMs,
      checkEveryMs: everyMs,
      action: options.action,
      logLevel: pino.levels.values[options.logLevel] ?? Number.POSITIVE_INFINITY,
    };
    const worker = new Worker(options.threadFile ?? defaultThreadFile(), {
      workerData,
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 },
    });
    worker.on('error', (error) => options.onError?.(error));
    worker.unref();
    const heartbeat = setInterval(() => board.beat(), everyMs);
    heartbeat.unref();
    return new EventLoopWatchdog(board, worker, heartbeat);
  }

  enter(request: InflightRequest): number {
    return this.board.enter(request);
  }

  leave(slot: number): void {
    this.board.leave(slot);
  }

  async stop(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.worker.terminate();
  }
}

function defaultThreadFile(): string {
  return fileURLToPath(new URL('./watchdog-thread.js', import.meta.url));
}
