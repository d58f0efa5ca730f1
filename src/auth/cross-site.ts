import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/app-config.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function changesState(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

/** The origins this server is reached at, as configured (PUBLIC_BASE_URL, DASHBOARD_URL). */
export function ownOrigins(config: AppConfig): string[] {
  const origins = new Set<string>();
  for (const url of [config.publicBaseUrl, config.dashboardUrl]) {
    try {
      origins.add(new URL(url).origin);
    } catch {
      // not an absolute URL: nothing to add
    }
  }
  return [...origins];
}

/**
 * Whether a browser sent this request for a page of another site or origin (a form, a link or a script elsewhere):
 * what a state change authenticated by the session cookie must refuse (CSRF), and what must not sign a browser in
 * (login CSRF). SameSite=Strict keeps the cookie off cross-site requests in current browsers, but not off requests
 * from sibling subdomains (same site) nor in browsers that ignore SameSite; HTML forms can post
 * application/x-www-form-urlencoded bodies, which the server parses.
 * Fetch Metadata decides when the browser sends it (`Sec-Fetch-Site`: only `same-origin`, and `none` for the user's
 * own navigation, pass); older browsers are judged by `Origin` against this server's origins. A request with neither
 * header does not come from a web page (curl, SDKs), so no third party can ride on its credentials.
 */
export function isCrossSiteBrowserRequest(request: FastifyRequest, origins: readonly string[]): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return false;
  if (origins.includes(origin)) return false;
  try {
    return new URL(origin).host !== request.host;
  } catch {
    return true; // `Origin: null` (sandboxed frames, file: pages) and anything unparsable
  }
}
