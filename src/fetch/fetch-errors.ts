import { AddressRefusedError } from './address-policy.js';
import { FetchError } from './fetcher.port.js';
import { BodyTooLargeError, CorruptBodyError, UnsupportedEncodingError } from './read-body.js';

const PREFIX = 'Failed to fetch url';

/** The fetch's own deadline fired, or the caller's signal aborted it. */
export class FetchDeadlineError extends Error {
  constructor(
    readonly timeoutMs: number,
    readonly cancelled: boolean,
  ) {
    super(cancelled ? 'cancelled' : `timed out after ${timeoutMs} ms`);
    this.name = 'FetchDeadlineError';
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

export function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** The error and its causes (`cause`, and the `errors` of an AggregateError from Happy Eyeballs), outermost first. */
function* chain(error: unknown): Generator<unknown> {
  const seen = new Set<unknown>();
  const queue = [error];
  while (queue.length > 0) {
    const next = queue.shift();
    if (next === undefined || next === null || seen.has(next)) continue;
    seen.add(next);
    yield next;
    if (next instanceof Error) {
      queue.push(next.cause);
      if (next instanceof AggregateError) queue.push(...(next.errors as unknown[]));
    }
  }
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

const CONNECTION_MESSAGES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  UND_ERR_SOCKET: 'the connection closed unexpectedly',
  UND_ERR_CLOSED: 'the connection closed unexpectedly',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the response was cut short',
  UND_ERR_HEADERS_OVERFLOW: 'the response headers are too large',
};
const TIMEOUT_MESSAGES: Record<string, string> = {
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for the response',
  UND_ERR_BODY_TIMEOUT: 'timed out reading the response',
};
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA', 'ENODATA', 'ESERVFAIL']);

/** Any failure of one fetch, as a FetchError whose message is fit for a `failed_results[].error`. */
export function toFetchError(error: unknown, url: string, maxBytes: number, hopUrl = url): FetchError {
  for (const cause of chain(error)) {
    if (cause instanceof FetchError) return cause;
    if (cause instanceof AddressRefusedError) return new FetchError('blocked_address', cause.message, url);
    if (cause instanceof FetchDeadlineError)
      return new FetchError(
        'timeout',
        cause.cancelled ? `${PREFIX}: cancelled` : `${PREFIX}: timed out after ${formatSeconds(cause.timeoutMs)}`,
        url,
      );
    if (cause instanceof BodyTooLargeError)
      return new FetchError('too_large', `${PREFIX}: the response is larger than ${formatBytes(maxBytes)}`, url);
    if (cause instanceof UnsupportedEncodingError)
      return new FetchError(
        'unsupported_content_type',
        `${PREFIX}: unsupported content encoding ${cause.encoding}`,
        url,
      );
    if (cause instanceof CorruptBodyError)
      return new FetchError('connection_failed', `${PREFIX}: the compressed response is corrupt`, url);
  }
  for (const cause of chain(error)) {
    const code = codeOf(cause);
    if (code === undefined) continue;
    if (DNS_CODES.has(code)) {
      const host = safeHost(hopUrl);
      return new FetchError('dns_failure', `${PREFIX}: the host ${host} could not be resolved`, url);
    }
    const timeout = TIMEOUT_MESSAGES[code];
    if (timeout) return new FetchError('timeout', `${PREFIX}: ${timeout}`, url);
    const connection = CONNECTION_MESSAGES[code];
    if (connection) return new FetchError('connection_failed', `${PREFIX}: ${connection}`, url);
    if (code.startsWith('HPE_')) return new FetchError('connection_failed', `${PREFIX}: invalid HTTP response`, url);
    if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|HOSTNAME_MISMATCH/.test(code))
      return new FetchError('connection_failed', `${PREFIX}: TLS error (${code})`, url);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new FetchError('connection_failed', `${PREFIX}: ${message}`, url);
}

function safeHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}
