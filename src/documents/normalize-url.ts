import { trimEndChars } from '../common/linear-text.js';

/**
 * One spelling per page. Map and crawl meet the same page under many URLs (relative links, fragments, tracking
 * parameters, `/a` vs `/a/`); `normalizeUrl` gives the URL we show and fetch, `pageKey` the identity we de-duplicate
 * on. Only http(s) URLs survive.
 */

/** Query parameters that identify a campaign or a click, never a different page. */
const TRACKING_PARAMS = new Set([
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'yclid',
  'twclid',
  'ttclid',
  'li_fat_id',
  'igshid',
  'mc_cid',
  'mc_eid',
  'ref_src',
  'ref_url',
  '_ga',
  '_gl',
  '_hsenc',
  '_hsmi',
  'hsctatracking',
  'mkt_tok',
  'oly_anon_id',
  'oly_enc_id',
  'vero_id',
  'vero_conv',
  's_cid',
  'spm',
  'wt.mc_id',
]);
const TRACKING_PREFIXES = ['utm_', 'pk_', 'mtm_'];

export const MAX_URL_LENGTH = 2048;

function isTrackingParam(name: string): boolean {
  const lower = name.toLowerCase();
  return TRACKING_PARAMS.has(lower) || TRACKING_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/**
 * The normalized absolute form of `input` (resolved against `base` when relative), or null when it is not an
 * http(s) URL: scheme and host lower-case (WHATWG URL parsing does that, and drops default ports and dot segments),
 * no fragment, no credentials, duplicate slashes in the path collapsed, tracking parameters removed and the rest
 * sorted by name (stably, so repeated names keep their order). The trailing slash is kept: `/a/` is what a server
 * may require, `pageKey` is what treats it as `/a`.
 */
export function normalizeUrl(input: string, base?: string | URL): string | null {
  const url = parseHttpUrl(input, base);
  if (!url) return null;
  url.hash = '';
  url.username = '';
  url.password = '';
  url.pathname = url.pathname.replace(/\/{2,}/g, '/');
  if (url.search) {
    // Pairs are kept as written (no re-encoding): only their order and the tracking ones change.
    const kept = url.search
      .slice(1)
      .split('&')
      .filter((pair) => pair !== '' && !isTrackingParam(paramName(pair)));
    kept.sort((a, b) => compare(paramName(a), paramName(b)));
    url.search = kept.join('&');
  }
  const href = url.href;
  return href.length > MAX_URL_LENGTH ? null : href;
}

/** The identity of a page: its normalized URL with a trailing slash removed from any path but the root. */
export function pageKey(normalized: string): string {
  const url = new URL(normalized);
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = trimEndChars(url.pathname, '/');
  return url.href;
}

/** The other spelling of a normalized URL's page (`/a` for `/a/`, `/a/` for `/a`); null for the root. */
export function slashTwin(normalized: string): string | null {
  const url = new URL(normalized);
  if (url.pathname === '/') return null;
  url.pathname = url.pathname.endsWith('/') ? trimEndChars(url.pathname, '/') : `${url.pathname}/`;
  return url.href;
}

/** Normalizes and keys in one step; null for anything but http(s). */
export function keyOf(input: string, base?: string | URL): string | null {
  const normalized = normalizeUrl(input, base);
  return normalized === null ? null : pageKey(normalized);
}

function paramName(pair: string): string {
  const raw = pair.split('=', 1)[0]!;
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function parseHttpUrl(input: string, base?: string | URL): URL | null {
  const trimmed = input.trim();
  if (!trimmed || trimmed.length > MAX_URL_LENGTH * 2) return null;
  let url: URL;
  try {
    url = new URL(trimmed, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (!url.hostname) return null;
  return url;
}

/**
 * The start URL of a map or crawl as the caller wrote it: a bare domain (`docs.example.com`, `example.com/docs`)
 * gets `https://`. Returns null when it is not a usable http(s) URL.
 */
export function parseStartUrl(input: string): string | null {
  const trimmed = input.trim();
  if (!trimmed) return null;
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed);
  if (!hasScheme && /^[a-z][a-z0-9+.-]*:/i.test(trimmed) && !/^[^:/]+:\d+(\/|$)/.test(trimmed)) return null;
  const absolute = hasScheme ? trimmed : `https://${trimmed.replace(/^\/+/, '')}`;
  const normalized = normalizeUrl(absolute);
  if (!normalized) return null;
  const host = new URL(normalized).hostname;
  // A host must look like a name or an address: `https://foo bar` is rejected by URL, `https://-` is not.
  if (!/^(\[[0-9a-f:.]+\]|[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?)$/i.test(host))
    return null;
  return normalized;
}
