import type { FastifyRequest } from 'fastify';

/** The dashboard session token carried by the `session` cookie, if any. */
export function sessionCookie(request: FastifyRequest): string | undefined {
  const cookie = request.headers.cookie;
  if (typeof cookie !== 'string') return undefined;
  for (const part of cookie.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name !== 'session') continue;
    try {
      return decodeURIComponent(value.join('='));
    } catch {
      return undefined; // not percent-encoded as a cookie value must be: no token (401), not a 500
    }
  }
  return undefined;
}
