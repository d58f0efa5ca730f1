import { writeSync } from 'node:fs';
import os from 'node:os';
import { workerData } from 'node:worker_threads';
import { type InflightSnapshot, WatchdogBoard } from './watchdog-board.js';

/** What the main thread hands the watchdog thread (worker_threads workerData). */
export interface WatchdogThreadData {
  readonly buffer: SharedArrayBuffer;
  readonly limitMs: number;
  readonly checkEveryMs: number;
  readonly action: 'exit' | 'log';
  /** pino's numeric level of the process logger: lines below it are not written. */
  readonly logLevel: number;
}

/** In-flight requests named in the log line (longest-running first); the rest are only counted. */
const LISTED = 20;
const LEVELS = { fatal: 60, error: 50, warn: 40 } as const;

/**
 * The watchdog thread: every `checkEveryMs` it reads the main thread's heartbeat on the shared board. Once the main
 * thread has not beaten for longer than `limitMs`, it writes a log line naming the requests in flight and, with
 * `action: 'exit'`, kills the process with SIGKILL: a blocked main thread runs no handler, so neither a graceful
 * shutdown nor `process.exit()` (which, from a worker, ends only the worker) could end it. Lines are written with
 * `fs.writeSync` on the process's stdout: `process.stdout` of a worker is relayed by the main thread, which is the
 * one that is blocked. They have the process logger's format (one JSON object, ISO time, textual level).
 */
function watch(data: WatchdogThreadData): void {
  const board = WatchdogBoard.attach(data.buffer);
  if (data.action === 'exit' && process.pid === 1) {
    log(
      data,
      'warn',
      {},
      `this process is PID 1: the event-loop watchdog's SIGKILL would have no effect; ${PID_1_ADVICE}`,
    );
  }
  /** While a block is being reported: when (this thread's performance.now()) the main thread last beat before it. */
  let lastBeatBefore: number | null = null;
  // A check that comes this late means this thread did not run either: the whole process was stopped (SIGSTOP,
  // Ctrl-Z, `docker pause`) or starved. The main thread's silence then proves nothing; the next check judges.
  const stalledAfterMs = Math.max(1000, data.limitMs / 2);
  let lastCheck = performance.now();
  setInterval(() => {
    const now = performance.now();
    const sinceCheckMs = now - lastCheck;
    lastCheck = now;
    if (sinceCheckMs > stalledAfterMs) return;
    const sinceBeatMs = board.sinceLastBeatMs();
    if (sinceBeatMs <= data.limitMs) {
      if (lastBeatBefore !== null) {
        const blockedMs = Math.round(performance.now() - sinceBeatMs - lastBeatBefore);
        log(data, 'warn', { blocked_ms: blockedMs }, `event loop unblocked after about ${blockedMs} ms`);
        lastBeatBefore = null;
      }
      return;
    }
    if (lastBeatBefore !== null) return;
    lastBeatBefore = performance.now() - sinceBeatMs;
    const inflight = board.inflight();
    const exit = data.action === 'exit';
    log(
      data,
      exit ? 'fatal' : 'error',
      { blocked_ms: sinceBeatMs, limit_ms: data.limitMs, watchdog_action: data.action, ...describe(inflight) },
      `event loop blocked for ${sinceBeatMs} ms (limit ${data.limitMs} ms)` +
        (exit ? ': killing the process (SIGKILL) for its supervisor to restart it' : ''),
    );
    if (exit) kill(data);
  }, data.checkEveryMs);
}

/**
 * SIGKILL to the process itself. The first process of a PID namespace (a container's PID 1 without an init) ignores
 * every signal it has no handler for, SIGKILL from itself included: then the line says so, and the watchdog goes on
 * as with `action: 'log'`.
 */
function kill(data: WatchdogThreadData): void {
  process.kill(process.pid, 'SIGKILL');
  setTimeout(
    () => log(data, 'fatal', { pid_namespace_init: process.pid === 1 }, `SIGKILL had no effect: ${PID_1_ADVICE}`),
    1000,
  ).unref();
}

const PID_1_ADVICE =
  'a PID 1 ignores signals it has no handler for; run the server under an init ' +
  '(docker run --init, compose init: true, tini as the entrypoint)';

function describe(inflight: InflightSnapshot): Record<string, unknown> {
  return {
    in_flight_count: inflight.requests.length + inflight.untracked,
    in_flight: inflight.requests.slice(0, LISTED).map((r) => ({
      request_id: r.requestId,
      method: r.method,
      route: r.route,
      running_ms: r.runningMs,
    })),
  };
}

function log(data: WatchdogThreadData, level: keyof typeof LEVELS, fields: Record<string, unknown>, msg: string): void {
  if (LEVELS[level] < data.logLevel) return;
  const line = {
    level,
    time: new Date().toISOString(),
    pid: process.pid,
    hostname: os.hostname(),
    context: 'EventLoopWatchdog',
    ...fields,
    msg,
  };
  try {
    writeSync(1, `${JSON.stringify(line)}\n`);
  } catch {
    // stdout is gone: nothing to tell, the action still applies
  }
}

watch(workerData as WatchdogThreadData);
