import type { KeyScope } from '../../keys/events/key.events.js';
import type { SpendLimit } from '../budgets/spend-budgets.js';
import type { StoredResponse } from '../idempotency/idempotency.store.js';
import { MESSAGES, MeteringException } from '../metering.errors.js';
import type { RateLimitDecision } from '../rate-limiter.service.js';

/** What the metering pipeline answers with besides the work's body: its refusals and its usage headers. */

export type MeteredResponse = StoredResponse & { readonly headers: Record<string, string> };

export function missingScope(scope: KeyScope): MeteringException {
  return MeteringException.of(403, `Forbidden: this API key does not have the '${scope}' scope.`, {});
}

export function replayOf(response: StoredResponse): MeteredResponse {
  return { ...response, headers: { ...response.headers, 'Idempotent-Replayed': 'true' } };
}

export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return { 'X-RateLimit-Limit': String(decision.limit), 'X-RateLimit-Remaining': String(decision.remaining) };
}

export function rateLimited(allowance: number, decision: RateLimitDecision, used: number): MeteringException {
  return MeteringException.of(
    429,
    MESSAGES.rateLimited,
    {
      ...rateLimitHeaders(decision),
      ...usageHeaders(allowance, used),
      'Retry-After': String(decision.retryAfterSeconds),
    },
    { retry_after: decision.retryAfterSeconds },
  );
}

const LIMIT_MESSAGES: Record<SpendLimit, string> = {
  organization: MESSAGES.quotaExhausted,
  project: MESSAGES.projectBudgetExhausted,
  key: MESSAGES.keyBudgetExhausted,
};

/** The one 402: which limit bit, with that limit's credits used and its size. */
export function limitReached(headers: Record<string, string>, limit: SpendLimit, used: number, size: number) {
  return MeteringException.of(402, LIMIT_MESSAGES[limit], headers, {
    limit,
    credits_used: used,
    credits_limit: size,
  });
}

export function usageHeaders(limit: number, used: number): Record<string, string> {
  return {
    'X-Credits-Limit': String(limit),
    'X-Credits-Used': String(used),
    'X-Credits-Remaining': String(Math.max(0, limit - used)),
  };
}
