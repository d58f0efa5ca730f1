import type { AppConfig } from '../../config/app-config.js';
import { EventLoopWatchdog } from './event-loop-watchdog.js';

/**
 * The process's event-loop watchdog as configured (EVENT_LOOP_BLOCK_LIMIT_MS, WATCHDOG_ACTION); null when
 * WATCHDOG_ACTION=off. Only the server process starts one (main.ts): not the CLI, not the tests' in-process apps.
 * It keeps watching through a graceful shutdown (a shutdown that wedges is a wedged loop too) and ends with the process.
 */
export function startWatchdog(config: AppConfig): EventLoopWatchdog | null {
  if (config.watchdogAction === 'off') return null;
  return EventLoopWatchdog.start({
    limitMs: config.eventLoopBlockLimitMs,
    action: config.watchdogAction,
    logLevel: config.logLevel,
    onError: (error) =>
      process.stderr.write(`event-loop watchdog failed, the process runs unwatched: ${error.stack}\n`),
  });
}
