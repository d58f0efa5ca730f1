import { HttpException, HttpStatus } from '@nestjs/common';
import { errorBody } from '../../http/error-body.js';

/** Seconds a client refused for load is told to wait: searches end within a few seconds, so a second is enough. */
export const OVERLOADED_RETRY_AFTER_SECONDS = 1;

/**
 * The 503 of a node too busy to answer a search in its budget: said at once, with Retry-After, and billed nothing
 * (the metering pipeline charges only work that succeeded).
 */
export function searchOverloaded(message: string): HttpException & { headers: Record<string, string> } {
  const refusal = new HttpException(
    errorBody(message, { retry_after: OVERLOADED_RETRY_AFTER_SECONDS }),
    HttpStatus.SERVICE_UNAVAILABLE,
  );
  // The exception filter sends an exception's `headers`.
  return Object.assign(refusal, { headers: { 'Retry-After': String(OVERLOADED_RETRY_AFTER_SECONDS) } });
}
