import type { RedisClientOptions } from 'redis';

/** The longest pause between two attempts to reconnect (jitter aside). */
const MAX_RECONNECT_DELAY_MS = 500;

/**
 * How the shared connection behaves when Redis goes away. A command waits in node-redis's offline queue for the
 * connection to come back at most `commandTimeoutMs` (REDIS_COMMAND_TIMEOUT_MS), then fails with its TimeoutError:
 * the call answers 503 instead of waiting out the outage. The timeout only ever fails a command that was not sent
 * (node-redis drops it once the command is written), so a command it fails did not run: it cannot have reserved,
 * counted or settled anything. A command already sent when the connection dies fails at once, as before.
 * Reconnection is tried every half second at most, so that calls are served soon after Redis is back.
 */
export function redisClientOptions(url: string, commandTimeoutMs: number) {
  return {
    url,
    commandOptions: { timeout: commandTimeoutMs },
    socket: {
      reconnectStrategy: (retries: number) =>
        Math.min(50 * 2 ** Math.min(retries, 10), MAX_RECONNECT_DELAY_MS) + Math.floor(Math.random() * 100),
    },
  } satisfies RedisClientOptions;
}
