import { BadRequestException, HttpException } from '@nestjs/common';
import { errorBody } from '../http/error-body.js';

/** The status of a map or crawl whose start page could not be read: the site, its upstream, failed (as 502 says). */
export const START_FAILED_STATUS = 502;

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const FAILURE_PREFIX = /^Failed to (?:fetch url|extract content): /;

/**
 * A map or crawl that found no page at all, because its start page failed, says why instead of answering an empty
 * 200. A start page refused by the SSRF rules on its way (a redirect to a refused address) is the caller's error, as
 * a start URL naming a refused address is (see resolveRequest): 400. Any other failure of the start page (a host
 * that does not resolve, an HTTP error status, a refused connection, a timeout, a page with nothing to read, a
 * robots.txt that disallows it or cannot be fetched) is a 502 that names the URL and the reason: the official
 * clients throw with it (`detail.error`), and nothing is billed. A start URL given without a scheme was tried as
 * https://; when that fails to connect, the message says to give http:// for a site served only over http.
 */
export function rejectFailedStart(error: unknown, startUrl: string, givenUrl: string): void {
  if (!error || typeof error !== 'object') return;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message !== '' ? message : 'the page could not be read';
  if (code === 'blocked_address' || /^Refused: /.test(text))
    throw new BadRequestException(errorBody(`url is not allowed: ${text}`));
  const reason = text.replace(FAILURE_PREFIX, '');
  const httpStatus = /^HTTP \d/.test(reason);
  const hint =
    !SCHEME.test(givenUrl) && startUrl.startsWith('https://') && !httpStatus && code !== 'dns_failure'
      ? `; no scheme was given, so https:// was tried: for a site served only over http, give ${startUrl.replace(/^https:/, 'http:')}`
      : '';
  throw new HttpException(
    errorBody(`The start URL ${startUrl} could not be read: ${reason}${hint}`),
    START_FAILED_STATUS,
  );
}
