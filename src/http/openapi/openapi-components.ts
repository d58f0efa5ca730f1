import type { HeadersObject } from '@nestjs/swagger';

/**
 * The parts of the document that are not a DTO or a route: security scheme names, and the response headers that
 * the metering pipeline sets on every metered answer (they are written by the pipeline, not by a controller).
 */
export const SECURITY = {
  apiKeyBearer: 'apiKeyBearer',
  apiKeyHeader: 'apiKeyHeader',
  apiKeyQuery: 'apiKeyQuery',
  sessionBearer: 'sessionBearer',
  sessionCookie: 'sessionCookie',
} as const;

export const USAGE_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-Credits-Limit',
  'X-Credits-Used',
  'X-Credits-Remaining',
] as const;

export const HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests per minute allowed to the key.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current minute.', schema: { type: 'integer' } },
  'X-Credits-Limit': { description: "The organization's monthly credit allowance.", schema: { type: 'number' } },
  'X-Credits-Used': {
    description:
      'Credits used this month, including this call, in the environment of the key (a test key: test credits).',
    schema: { type: 'number' },
  },
  'X-Credits-Remaining': { description: 'Credits left this month.', schema: { type: 'number' } },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored response of an earlier call with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  'X-Request-Id': {
    description: 'The request id (the x-request-id request header when it is well-formed, else a new UUID).',
    schema: { type: 'string' },
  },
  'WWW-Authenticate': {
    description: 'Bearer realm="mcp", error="invalid_token", error_description="…".',
    schema: { type: 'string' },
  },
} satisfies HeadersObject;

export type HeaderName = keyof typeof HEADERS;

/** References to components.headers, for a response's `headers`. */
export function headerRefs(...names: readonly HeaderName[]): HeadersObject {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }])) as HeadersObject;
}
