import { Body, Controller, Get, HttpCode, Post, Req, Res, UnauthorizedException, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../http/error-body.js';
import { RequestMagicLinkDto, VerifyMagicLinkDto } from './dto/magic-link.dto.js';
import { MagicLinkService } from './magic-link.service.js';
import { CurrentSession, SessionGuard } from './session.guard.js';
import { SessionService, type SessionUser } from './session.service.js';
import { SignInLimiter } from './sign-in-limiter.js';
import { normalizeEmail } from '../users/events/user.events.js';

const REDEEM_FAILURES = {
  invalid: 'this sign-in link is not valid; request a new one',
  expired: 'this sign-in link has expired; request a new one',
  used: 'this sign-in link has already been used; request a new one',
} as const;

@Controller('auth')
export class AuthController {
  constructor(
    private readonly magicLinks: MagicLinkService,
    private readonly sessions: SessionService,
    private readonly limiter: SignInLimiter,
  ) {}

  @Post('magic-link')
  @HttpCode(202)
  async requestLink(@Body() body: RequestMagicLinkDto, @Req() request: FastifyRequest) {
    await this.limiter.consume(normalizeEmail(body.email), request.ip);
    await this.magicLinks.request(body.email);
    return { message: 'If the address can sign in, a sign-in link is on its way.' };
  }

  @Post('magic-link/verify')
  @HttpCode(200)
  async verify(@Body() body: VerifyMagicLinkDto) {
    const result = await this.magicLinks.redeem(body.token);
    if (!result.ok)
      throw new UnauthorizedException(errorBody(REDEEM_FAILURES[result.reason], { reason: result.reason }));
    return {
      session_token: result.session.token,
      token_type: 'Bearer',
      expires_at: result.session.expiresAt.toISOString(),
      user: { id: result.user.id, email: result.user.email },
    };
  }

  @Get('session')
  @UseGuards(SessionGuard)
  current(@CurrentSession() session: SessionUser) {
    return { user: { id: session.userId, email: session.email } };
  }

  @Post('sign-out')
  @UseGuards(SessionGuard)
  async signOut(@CurrentSession() session: SessionUser, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.sessions.revoke(session.sessionId);
    void reply.status(204);
  }
}
