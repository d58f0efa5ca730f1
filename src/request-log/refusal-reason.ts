import { safeUrl } from './request-summary.js';

/** The longest reason the request log keeps. */
export const MAX_REASON = 300;

/** A URL inside an error's text: kept as scheme, host and path (no userinfo, query or fragment), as summaries are. */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s"'<>]+/gi;
/** Anything shaped like an API key (`<prefix>_live_<secret>`): kept as its display prefix only. */
const SECRET_LIKE = /\b([a-z][a-z0-9]{1,11}_(?:live|test)_[0-9A-Za-z]{6})[0-9A-Za-z]{10,}/g;

/**
 * Why a call was refused or failed, from its error response: the body's `detail.error` (Tavily's shape), else its
 * `error`, else its `message`, clipped to MAX_REASON characters, with URLs and anything like a key cut as the
 * request log's summaries are (it must never hold a secret); null for a body that says none.
 */
export function refusalReason(payload: unknown): string | null {
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  if (text === null || text.length > 64 * 1024) return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null) return null;
  const { detail, error, message } = body as { detail?: unknown; error?: unknown; message?: unknown };
  const nested = typeof detail === 'object' && detail !== null ? (detail as { error?: unknown }).error : undefined;
  const reason = [nested, error, message].find((value): value is string => typeof value === 'string' && value !== '');
  if (reason === undefined) return null;
  const oneLine = reason
    .replace(/\s+/g, ' ')
    .replace(URL_IN_TEXT, (url) => safeUrl(url))
    .replace(SECRET_LIKE, (_, head: string) => `${head}…`)
    .trim();
  return oneLine.length > MAX_REASON ? `${oneLine.slice(0, MAX_REASON - 1)}…` : oneLine;
}
