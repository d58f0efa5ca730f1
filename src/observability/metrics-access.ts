import ipaddr from 'ipaddr.js';
import { secretsEqual, sha256Hex } from '../common/secrets.js';
import type { AppConfig } from '../config/app-config.js';
import { errorBody } from '../http/error-body.js';

export const METRICS_UNAUTHORIZED = 'Unauthorized: /metrics requires the METRICS_TOKEN bearer token.';
export const METRICS_LOOPBACK_ONLY =
  'Forbidden: /metrics answers only requests from this machine (loopback addresses) while METRICS_TOKEN is not set. ' +
  'To scrape it from elsewhere, set METRICS_TOKEN and send it as a bearer token, or serve /metrics on a listener of ' +
  'its own with METRICS_PORT, or set METRICS_PUBLIC=true behind a proxy that guards it.';

/** Who may read /metrics on a listener: the bearer of METRICS_TOKEN, this machine only, or anyone who reaches it. */
export type MetricsAccess = 'token' | 'loopback' | 'anyone';

/** The headers a proxy adds to a request it forwards: a request from loopback carrying one is not this machine's. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

/**
 * The access rule of /metrics: with METRICS_TOKEN, its bearer token on any listener; without, anyone who reaches the
 * listener of its own (METRICS_PORT: the operator placed it), and on the public listener only this machine unless
 * METRICS_PUBLIC=true.
 */
export function metricsAccess(config: AppConfig): MetricsAccess {
  if (config.metricsToken !== null) return 'token';
  return config.metricsPort !== null || config.metricsPublic ? 'anyone' : 'loopback';
}

/** What a scrape may be told, as the HTTP answer: nothing (it may read them), or a refusal with its status. */
export type MetricsRefusal = {
  readonly status: 401 | 403;
  readonly body: Record<string, unknown>;
  readonly headers: Readonly<Record<string, string>>;
};

export interface MetricsScrape {
  readonly authorization: string | undefined;
  /** The address of the connection's peer (the socket's, not one a header claims). */
  readonly peer: string | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** Null when the scrape may read the metrics, else the refusal to answer with. */
export function refuseMetricsScrape(config: AppConfig, scrape: MetricsScrape): MetricsRefusal | null {
  switch (metricsAccess(config)) {
    case 'anyone':
      return null;
    case 'token':
      return bearerMatches(config.metricsToken ?? '', scrape.authorization)
        ? null
        : { status: 401, body: errorBody(METRICS_UNAUTHORIZED), headers: { 'www-authenticate': 'Bearer' } };
    case 'loopback':
      return isLoopback(scrape.peer) && !FORWARDING_HEADERS.some((name) => scrape.headers[name] !== undefined)
        ? null
        : { status: 403, body: errorBody(METRICS_LOOPBACK_ONLY), headers: {} };
  }
}

/**
 * Whether the request carries `Authorization: Bearer <token>`. Both sides are hashed first, so the comparison takes
 * the same time whatever the length of the guess.
 */
function bearerMatches(token: string, authorization: string | undefined): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  return secretsEqual(sha256Hex(match?.[1] ?? ''), sha256Hex(token));
}

/** 127.0.0.0/8, ::1, and 127.x written as IPv4-mapped IPv6 (::ffff:127.0.0.1, what a dual-stack socket reports). */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined || !ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
}

/** Where /metrics can be read, and by whom: the start-up line of the server. */
export function metricsWhereabouts(config: AppConfig): string {
  const listener =
    config.metricsPort === null
      ? `GET /metrics on the public listener (${config.publicBaseUrl}/metrics)`
      : `GET /metrics on its own listener, http://${config.metricsHost}:${config.metricsPort}/metrics`;
  switch (metricsAccess(config)) {
    case 'token':
      return `${listener}, for the METRICS_TOKEN bearer token`;
    case 'anyone':
      return config.metricsPort === null
        ? `${listener}, open to anyone who reaches it (METRICS_PUBLIC=true)`
        : `${listener}, open to anyone who reaches it (no METRICS_TOKEN)`;
    case 'loopback':
      return `${listener}, from this machine only (loopback addresses, not forwarded by a proxy); set METRICS_TOKEN or METRICS_PORT to scrape it from elsewhere`;
  }
}
