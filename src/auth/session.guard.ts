import {
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
  UnauthorizedException,
  createParamDecorator,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { errorBody } from '../http/error-body.js';
import { changesState, isCrossSiteBrowserRequest, ownOrigins } from './cross-site.js';
import { sessionCookie } from './session-cookie.js';
import { type SessionUser, SessionService } from './session.service.js';

type SessionRequest = FastifyRequest & { session?: SessionUser };

/**
 * Control-plane routes: a dashboard session token (Bearer header or `session` cookie), never an API key. A state
 * change authenticated by the cookie alone is refused (403) when a browser sent it from another site or origin.
 */
@Injectable()
export class SessionGuard implements CanActivate {
  private readonly origins: readonly string[];

  constructor(
    private readonly sessions: SessionService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.origins = ownOrigins(config);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<SessionRequest>();
    const bearer = bearerToken(request);
    const token = bearer ?? sessionCookie(request);
    if (!token)
      throw new UnauthorizedException(
        errorBody('a dashboard session token is required (Authorization: Bearer sess_...)'),
      );
    if (!bearer && changesState(request.method) && isCrossSiteBrowserRequest(request, this.origins))
      throw new ForbiddenException(errorBody('cross-site requests cannot use the session cookie'));
    const session = await this.sessions.resolve(token);
    if (!session) throw new UnauthorizedException(errorBody('the session token is invalid or has expired'));
    request.session = session;
    return true;
  }
}

export const CurrentSession = createParamDecorator((_: unknown, context: ExecutionContext): SessionUser => {
  const session = context.switchToHttp().getRequest<SessionRequest>().session;
  if (!session) throw new UnauthorizedException(errorBody('not signed in'));
  return session;
});

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match?.[1];
}
