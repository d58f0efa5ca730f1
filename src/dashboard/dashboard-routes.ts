import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isCrossSiteBrowserRequest, ownOrigins } from '../auth/cross-site.js';
import { MagicLinkService } from '../auth/magic-link.service.js';
import { sessionCookie } from '../auth/session-cookie.js';
import { TOO_MANY_REDEMPTIONS, tooManySignInAttempts } from '../auth/sign-in-rate-limits.js';
import { SessionService } from '../auth/session.service.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { projectRoot } from '../database/project-root.js';
import { errorBody } from '../http/error-body.js';
import { DASHBOARD_HEADERS, assetsMissingPage, dashboardShell } from './dashboard-page.js';
import { trimEndChars } from '../common/linear-text.js';

const ASSET_NAME = /^[a-z0-9][a-z0-9-]*\.(js|css|svg)$/;
const CONTENT_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};
const REDEEM_MESSAGES = {
  invalid: 'this sign-in link is not valid; request a new one',
  expired: 'this sign-in link has expired; request a new one',
  used: 'this sign-in link has already been used; request a new one',
} as const;

/** Where `npm run build` puts the compiled dashboard (see dashboard/build.mjs). */
export function dashboardAssetsDir(): string {
  return path.join(projectRoot(), 'dist', 'dashboard');
}

/** The path part of DASHBOARD_URL (default `/dashboard`): where this server serves the dashboard. */
export function dashboardBasePath(dashboardUrl: string): string {
  let pathname: string;
  try {
    pathname = new URL(dashboardUrl).pathname;
  } catch {
    pathname = dashboardUrl;
  }
  const trimmed = trimEndChars(pathname, '/');
  return trimmed === '' ? '/dashboard' : trimmed;
}

/**
 * The dashboard's routes, mounted under DASHBOARD_URL's path (known only at start-up, hence plain Fastify routes):
 * the page shell for every client-side route, the static assets, and two small session routes that keep the session
 * token in an HttpOnly, SameSite=Strict cookie (Secure over https), so that no script can read it.
 */
@Injectable()
export class DashboardRoutes implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly moduleRef: ModuleRef,
    private readonly sessions: SessionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // An application context without an HTTP server (the operator CLI) has no routes to add.
    if (!this.adapterHost.httpAdapter) return;
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const base = dashboardBasePath(this.config.dashboardUrl);
    const assets = dashboardAssetsDir();
    // MagicLinkService is AuthModule's own; the dashboard redeems links exactly as POST /auth/magic-link/verify does.
    const magicLinks = this.moduleRef.get(MagicLinkService, { strict: false });
    const origins = ownOrigins(this.config);
    // Signing a browser in or out is for this origin's own pages: a form elsewhere could sign the browser in to the
    // sender's account (login CSRF) or out of its own.
    const crossSite = (request: FastifyRequest, reply: FastifyReply) =>
      isCrossSiteBrowserRequest(request, origins)
        ? reply.status(403).send(errorBody('cross-site requests cannot sign in or out', { reason: 'cross_site' }))
        : null;

    const shell = async (_request: FastifyRequest, reply: FastifyReply) => {
      void reply.headers(DASHBOARD_HEADERS).header('cache-control', 'no-store').type('text/html; charset=utf-8');
      const built = await stat(path.join(assets, 'assets', 'app.js')).catch(() => null);
      if (!built) return reply.status(503).send(assetsMissingPage());
      return reply.send(dashboardShell(base, String(Math.floor(built.mtimeMs))));
    };

    fastify.get(base, shell);
    fastify.get(`${base}/*`, shell);

    fastify.get<{ Params: { name: string } }>(`${base}/assets/:name`, async (request, reply) => {
      const name = request.params.name;
      void reply.headers(DASHBOARD_HEADERS);
      if (!ASSET_NAME.test(name)) return reply.status(404).send(errorBody('not found'));
      const body = await readFile(path.join(assets, 'assets', name)).catch(() => null);
      if (!body) return reply.status(404).send(errorBody('not found'));
      return reply
        .type(CONTENT_TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream')
        .header('cache-control', 'no-cache')
        .send(body);
    });

    fastify.post<{ Body: unknown }>(`${base}/session`, async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      if (crossSite(request, reply)) return reply;
      const token = (request.body as { token?: unknown } | undefined)?.token;
      if (typeof token !== 'string' || token.length === 0 || token.length > 200)
        return reply.status(400).send(errorBody('token is required', { reason: 'invalid' }));
      const result = await magicLinks.redeem(token, request.ip);
      if (!result.ok && result.reason === 'too_many_attempts') {
        const refusal = tooManySignInAttempts(TOO_MANY_REDEMPTIONS[result.scope], result.retryAfter);
        return reply.status(refusal.getStatus()).headers(refusal.headers).send(refusal.getResponse());
      }
      if (!result.ok)
        return reply.status(401).send(errorBody(REDEEM_MESSAGES[result.reason], { reason: result.reason }));
      const maxAge = Math.max(0, Math.floor((result.session.expiresAt.getTime() - Date.now()) / 1000));
      return reply
        .header('set-cookie', this.cookie(request, result.session.token, maxAge))
        .send({ user: { id: result.user.id, email: result.user.email }, expires_at: result.session.expiresAt });
    });

    fastify.post(`${base}/sign-out`, async (request, reply) => {
      if (crossSite(request, reply)) return reply;
      const token = sessionCookie(request);
      if (token) {
        const session = await this.sessions.resolve(token);
        if (session) await this.sessions.revoke(session.sessionId);
      }
      return reply
        .header('set-cookie', this.cookie(request, '', 0))
        .status(204)
        .send();
    });
  }

  private cookie(request: FastifyRequest, value: string, maxAge: number): string {
    const secure = request.protocol === 'https' || this.config.dashboardUrl.startsWith('https:');
    return [
      `session=${encodeURIComponent(value)}`,
      'Path=/',
      'HttpOnly',
      'SameSite=Strict',
      `Max-Age=${maxAge}`,
      ...(secure ? ['Secure'] : []),
    ].join('; ');
  }
}
