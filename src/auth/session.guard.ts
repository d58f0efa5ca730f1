import {
  type CanActivate,
  type ExecutionContext,
  Injectable,
  UnauthorizedException,
  createParamDecorator,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { errorBody } from '../http/error-body.js';
import { type SessionUser, SessionService } from './session.service.js';

type SessionRequest = FastifyRequest & { session?: SessionUser };

/** Control-plane routes: a dashboard session token (Bearer header or `session` cookie), never an API key. */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(private readonly sessions: SessionService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<SessionRequest>();
    const token = bearerToken(request) ?? cookieToken(request);
    if (!token)
      throw new UnauthorizedException(
        errorBody('a dashboard session token is required (Authorization: Bearer sess_...)'),
      );
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

function cookieToken(request: FastifyRequest): string | undefined {
  const cookie = request.headers.cookie;
  if (typeof cookie !== 'string') return undefined;
  for (const part of cookie.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === 'session') return decodeURIComponent(value.join('='));
  }
  return undefined;
}
