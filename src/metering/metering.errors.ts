import { HttpException } from '@nestjs/common';
import { errorBody } from '../http/error-body.js';

/** An error of the data plane that carries the headers that apply (rate limit, credits, Retry-After). */
export class MeteringException extends HttpException {
  constructor(
    status: number,
    body: Record<string, unknown>,
    readonly headers: Record<string, string>,
  ) {
    super(body, status);
  }

  static of(status: number, message: string, headers: Record<string, string>, context: Record<string, unknown> = {}) {
    return new MeteringException(status, errorBody(message, context), headers);
  }

  /** The same error with the usage headers added (a 400 or 502 from the work keeps its status and body). */
  static withHeaders(error: unknown, headers: Record<string, string>): unknown {
    if (error instanceof MeteringException)
      return new MeteringException(error.getStatus(), bodyOf(error), { ...headers, ...error.headers });
    if (error instanceof HttpException) {
      // An error's own headers (a 503's Retry-After) are kept beside the usage headers.
      const own = (error as { headers?: Record<string, string> }).headers;
      return new MeteringException(error.getStatus(), bodyOf(error), { ...headers, ...own });
    }
    return error;
  }
}

function bodyOf(error: HttpException): Record<string, unknown> {
  const response = error.getResponse();
  if (typeof response === 'string') return errorBody(response);
  const r = response as { error?: unknown; message?: unknown; detail?: unknown };
  if (typeof r.error === 'string' && r.detail) return r as Record<string, unknown>;
  const message = Array.isArray(r.message)
    ? String(r.message[0])
    : typeof r.message === 'string'
      ? r.message
      : error.message;
  return errorBody(message);
}

export const MESSAGES = {
  invalidKey: 'Unauthorized: missing or invalid API key.',
  revokedKey: 'Unauthorized: this API key has been revoked.',
  rateLimited: 'Your request has been blocked due to excessive requests. Please reduce rate of requests.',
  quotaExhausted: "This request exceeds your plan's monthly credit allowance. Raise the limit or upgrade the plan.",
  keyBudgetExhausted: "This request exceeds this API key's monthly credit limit. An owner or admin can raise it.",
  projectBudgetExhausted: "This request exceeds the project's monthly credit limit. An owner or admin can raise it.",
  idempotencyRunning: 'A request with this Idempotency-Key is still being processed; retry after it completes.',
  idempotencyMismatch: 'This Idempotency-Key was already used with a different request body.',
  chargeFailed: 'The usage of this request could not be recorded, so it was neither served nor billed; retry.',
  chargeUnknown:
    'The service could not confirm whether the usage of this request was recorded, and did not serve it; a retry ' +
    'with the same Idempotency-Key returns its result without billing twice.',
} as const;
