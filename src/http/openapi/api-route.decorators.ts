import { type Type, applyDecorators } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiHeader,
  ApiParam,
  ApiResponse,
  type ApiResponseOptions,
  ApiSecurity,
  type SchemaObject,
} from '@nestjs/swagger';
import { ErrorResponseDto, QuotaErrorResponseDto, RateLimitErrorResponseDto } from '../dto/error-response.dto.js';
import { type HeaderName, SECURITY, USAGE_HEADERS, headerRefs } from './openapi-components.js';

/** The body of a 200 answer: a response class, or a schema (a `oneOf` of classes named in `models`). */
export type ResponseBody = Type | { schema: SchemaObject; models: readonly Type[] };

const error = (status: number, description: string, type: Type = ErrorResponseDto, headers: HeaderName[] = []) =>
  ApiResponse({ status, description, type, ...(headers.length > 0 ? { headers: headerRefs(...headers) } : {}) });

/**
 * What every route behind the metering pipeline answers: its success body with the usage headers, and the
 * pipeline's refusals (400 validation, 401 key, 402 quota, 403 scope, 409/422 idempotency, 429 rate, 502 upstream,
 * 503 dependency). `extra` adds a route's own answers (404, 501, …).
 */
export function ApiMeteredResponses(body: ResponseBody, extra: ApiResponseOptions[] = []): MethodDecorator {
  const usage = [...USAGE_HEADERS];
  return applyDecorators(
    ApiSecurity(SECURITY.apiKeyBearer),
    ApiSecurity(SECURITY.apiKeyHeader),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Makes the call safe to retry for 24 hours within the organization: a repeat returns the first response ' +
        '(Idempotent-Replayed: true) and is billed once. 1–255 printable ASCII characters.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    }),
    ...('schema' in body ? [ApiExtraModels(...body.models)] : []),
    ApiResponse({
      status: 200,
      description: 'Success. Billed; the usage headers say where the organization stands.',
      headers: headerRefs(...usage, 'Idempotent-Replayed', 'X-Request-Id'),
      ...('schema' in body ? { schema: body.schema } : { type: body }),
    }),
    error(400, 'Invalid parameters: `error` names the first problem. Not billed.', ErrorResponseDto, usage),
    error(401, 'Missing, malformed, unknown or revoked API key.'),
    error(
      402,
      "A monthly credit limit would be exceeded: the organization's (allowance, grants and overage cap), the " +
        "project's or the key's; `limit` names it. Not billed. Do not retry before the limit is raised or the month ends.",
      QuotaErrorResponseDto,
      usage,
    ),
    error(403, 'The key lacks the scope, or is limited to basic depth. Do not retry.'),
    error(409, 'A call with this Idempotency-Key is still running.', ErrorResponseDto, usage),
    error(422, 'This Idempotency-Key was used with a different body.', ErrorResponseDto, usage),
    error(429, 'Over the per-minute rate limit of the key.', RateLimitErrorResponseDto, [...usage, 'Retry-After']),
    error(
      502,
      'An upstream failed: a search provider, or (map, crawl) the start URL could not be read, the reason in ' +
        '`error`. Not billed; retry with backoff when the failure may pass.',
      ErrorResponseDto,
      usage,
    ),
    error(503, 'A dependency is unavailable, or the charge could not be recorded; retry shortly.', ErrorResponseDto, [
      'Retry-After',
    ]),
    ...extra.map((options) => ApiResponse(options)),
  );
}

/**
 * What a free route of the data plane answers (POST /feedback, POST /logs, POST /org-usage: an API key, the rate
 * limit, nothing billed): its success body with the rate-limit headers, 400 for a bad body, 401, 429. `extra` adds a
 * route's own answers (403, 404).
 */
export function ApiFreeKeyResponses(body: Type, extra: ApiResponseOptions[] = []): MethodDecorator {
  const rate: HeaderName[] = ['X-RateLimit-Limit', 'X-RateLimit-Remaining'];
  return applyDecorators(
    ApiSecurity(SECURITY.apiKeyBearer),
    ApiSecurity(SECURITY.apiKeyHeader),
    ApiResponse({
      status: 200,
      description: 'Success. Free.',
      type: body,
      headers: headerRefs(...rate, 'X-Request-Id'),
    }),
    error(400, 'Invalid body: `error` names the first problem.'),
    error(401, 'Missing, malformed, unknown or revoked API key.'),
    error(429, 'Over the per-minute rate limit of the key.', RateLimitErrorResponseDto, [...rate, 'Retry-After']),
    ...extra.map((options) => ApiResponse(options)),
  );
}

/** Routes signed in with a session (control plane): the session schemes and the 401 answer. */
export function ApiSessionAuth(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiSecurity(SECURITY.sessionBearer),
    ApiSecurity(SECURITY.sessionCookie),
    error(401, 'Missing, invalid or expired session token.'),
  );
}

/**
 * Routes under /orgs/{org_id}: the organization's id, and the 404 a caller gets who is not a member (or lacks the
 * role), exactly as if the organization did not exist.
 */
export function ApiOrgScoped(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiParam({ name: 'org_id', format: 'uuid', description: 'Organization id.' }),
    error(
      404,
      'Not found, or the caller is not a member of the organization (or lacks the role), exactly as if it did not ' +
        'exist.',
    ),
  );
}
