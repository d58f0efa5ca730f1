import { badRequest } from './crawl-request.js';

/**
 * A start URL whose host resolves to a refused address (private, loopback, metadata, ...) is the caller's error, as a
 * literal refused address is: 400, not an empty 200. Any other failure of the start page is an empty result.
 */
export function rejectRefusedStart(error: unknown): void {
  if (!error || typeof error !== 'object') return;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const refused = code === 'blocked_address' || (typeof message === 'string' && /^Refused: /.test(message));
  if (refused) throw badRequest(`url is not allowed: ${String(message)}`);
}
