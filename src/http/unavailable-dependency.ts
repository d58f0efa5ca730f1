import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ReconnectStrategyError,
  TimeoutError as RedisCommandTimeoutError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
} from 'redis';

/**
 * An error a dependency's own watch raises when the dependency has stopped answering (src/redis/redis-stall-watch.ts):
 * declared here, below the infrastructure, so that this check knows it without importing the watch.
 */
export class DependencyNotAnsweringError extends Error {}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// PostgreSQL: admin shutdown, crash shutdown, cannot connect now, connection failures, too many connections.
const POSTGRES_UNAVAILABLE = /^(57P0[1-3]|08\d{3}|53300)$/;
// A Redis Cluster that cannot serve a slot for now (a master failed, its replica not promoted yet): nothing ran.
const REDIS_CLUSTER_UNAVAILABLE = /^(CLUSTERDOWN|TRYAGAIN|MASTERDOWN|LOADING)\b/;
const REDIS_UNAVAILABLE = new Set([
  'ClientClosedError',
  'ClientOfflineError',
  'SocketClosedUnexpectedlyError',
  'ConnectionTimeoutError',
]);
// node-redis's own errors keep the name 'Error' (its command timeout, REDIS_COMMAND_TIMEOUT_MS offline, has no message
// either): they are told by their class.
const REDIS_ERROR_CLASSES = [
  ClientClosedError,
  ClientOfflineError,
  SocketClosedUnexpectedlyError,
  ConnectionTimeoutError,
  SocketTimeoutError,
  DisconnectsClientError,
  ReconnectStrategyError,
  RedisCommandTimeoutError,
  DependencyNotAnsweringError,
];

/**
 * Whether an error means a dependency (PostgreSQL, Redis, the event store) is out of reach rather than a bug:
 * such requests fail closed with 503, never serve unbilled work, and succeed again once it is back.
 */
export function isUnavailableDependency(error: unknown): boolean {
  for (let cause = error, depth = 0; cause && typeof cause === 'object' && depth < 5; depth++) {
    const { code, name, message } = cause as { code?: unknown; name?: unknown; message?: unknown };
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || POSTGRES_UNAVAILABLE.test(code))) return true;
    if (typeof name === 'string' && REDIS_UNAVAILABLE.has(name)) return true;
    if (REDIS_ERROR_CLASSES.some((type) => cause instanceof type)) return true;
    if (typeof message === 'string' && REDIS_CLUSTER_UNAVAILABLE.test(message)) return true;
    if (
      typeof message === 'string' &&
      /Connection terminated|timeout exceeded when trying to connect|Query read timeout|UNAVAILABLE/.test(message)
    ) {
      return true;
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
