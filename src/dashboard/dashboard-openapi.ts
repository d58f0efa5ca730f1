import type { PathsObject } from '@nestjs/swagger';

const ERROR = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };

/**
 * The OpenAPI paths of the dashboard's routes. They are plain Fastify routes mounted at DASHBOARD_URL's path, known
 * only at start-up (see dashboard-routes.ts), so no controller decorator can describe them: this is their one
 * description, added to the generated document.
 */
export function dashboardOpenApiPaths(base: string): PathsObject {
  const page = (operationId: string, summary: string, withPath: boolean) => ({
    get: {
      operationId,
      tags: ['Dashboard'],
      summary,
      security: [],
      ...(withPath
        ? {
            parameters: [
              {
                name: 'path',
                in: 'path' as const,
                required: true,
                description: 'Any path below the dashboard.',
                schema: { type: 'string' },
              },
            ],
          }
        : {}),
      responses: {
        '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
        '503': { description: 'The dashboard was not built (npm run build).' },
      },
    },
  });
  return {
    [base]: page('Dashboard_page', 'The web dashboard (sign in, organizations, projects, keys, usage)', false),
    [`${base}/{path}`]: page('Dashboard_route', 'A client-side route of the dashboard (the same page)', true),
    [`${base}/assets/{name}`]: {
      get: {
        operationId: 'Dashboard_asset',
        tags: ['Dashboard'],
        summary: 'A script, style sheet or image of the dashboard',
        security: [],
        parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'The file.' }, '404': { description: 'No such file.', content: ERROR } },
      },
    },
    [`${base}/session`]: {
      post: {
        operationId: 'Dashboard_signIn',
        tags: ['Dashboard'],
        summary: 'Redeem a sign-in link into an HttpOnly session cookie',
        security: [],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/VerifyMagicLink' } } },
        },
        responses: {
          '200': {
            description: 'Signed in: the session is in the `session` cookie (Set-Cookie), never in the body.',
            headers: { 'Set-Cookie': { schema: { type: 'string' } } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/DashboardSession' } } },
          },
          '400': { description: 'No token.', content: ERROR },
          '401': { description: 'The link is invalid, expired or used (`reason` says which).', content: ERROR },
          '403': { description: 'A cross-site request.', content: ERROR },
          '429': {
            description: 'Too many failed redemptions from the client address.',
            headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/RateLimitError' } } },
          },
        },
      },
    },
    [`${base}/sign-out`]: {
      post: {
        operationId: 'Dashboard_signOut',
        tags: ['Dashboard'],
        summary: 'End the cookie session and clear the cookie',
        security: [],
        responses: {
          '204': { description: 'Signed out.', headers: { 'Set-Cookie': { schema: { type: 'string' } } } },
          '403': { description: 'A cross-site request.', content: ERROR },
        },
      },
    },
  };
}
