import type { FastifyRequest } from 'fastify';

/**
 * The API key of a data-plane request: `Authorization: Bearer`, then `x-api-key`, then the body's `api_key`, which
 * is removed from the body here, before any validation, handler or log sees it.
 */
export function takeApiKey(request: FastifyRequest): { apiKey: string | null; body: Record<string, unknown> } {
  const body =
    request.body && typeof request.body === 'object' && !Array.isArray(request.body)
      ? (request.body as Record<string, unknown>)
      : {};
  const fromBody = body.api_key;
  delete body.api_key;
  const authorization = request.headers.authorization;
  const bearer = typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  if (bearer) return { apiKey: bearer, body };
  if (typeof authorization === 'string' && authorization.trim() !== '') return { apiKey: null, body };
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header.trim() !== '') return { apiKey: header.trim(), body };
  return { apiKey: typeof fromBody === 'string' ? fromBody : null, body };
}
