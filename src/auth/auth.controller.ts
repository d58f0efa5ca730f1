import { Body, Controller, Get, HttpCode, Post, Req, Res, UnauthorizedException, UseGuards } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorResponseDto, RateLimitErrorResponseDto } from '../http/dto/error-response.dto.js';
import { ApiSessionAuth } from '../http/openapi/api-route.decorators.js';
import { headerRefs } from '../http/openapi/openapi-components.js';
import { errorBody } from '../http/error-body.js';
import { RequestMagicLinkDto, VerifyMagicLinkDto } from './dto/magic-link.dto.js';
import { CurrentSessionDto, MagicLinkRequestedDto, SessionDto } from './dto/session-response.dto.js';
import { MagicLinkService } from './magic-link.service.js';
import { OperatorAccess } from './operator-access.service.js';
import { CurrentSession, SessionGuard } from './session.guard.js';
import { SessionService, type SessionUser } from './session.service.js';
import { SignInLimiter } from './sign-in-limiter.js';
import { TOO_MANY_REDEMPTIONS, tooManySignInAttempts } from './sign-in-rate-limits.js';
import { normalizeEmail } from '../common/email-address.js';

const REDEEM_FAILURES = {
  invalid: 'this sign-in link is not valid; request a new one',
  expired: 'this sign-in link has expired; request a new one',
  used: 'this sign-in link has already been used; request a new one',
} as const;

@Controller('auth')
@ApiTags('Sign-in')
export class AuthController {
  constructor(
    private readonly magicLinks: MagicLinkService,
    private readonly sessions: SessionService,
    private readonly limiter: SignInLimiter,
    private readonly operators: OperatorAccess,
  ) {}

  /** Ask for a sign-in link by e-mail (always 202: whether the address can sign in is not revealed) */
  @Post('magic-link')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: MagicLinkRequestedDto })
  @ApiTooManyRequestsResponse({
    description: 'Too many sign-in requests for the address or IP.',
    type: RateLimitErrorResponseDto,
    headers: headerRefs('Retry-After'),
  })
  async requestLink(@Body() body: RequestMagicLinkDto, @Req() request: FastifyRequest): Promise<MagicLinkRequestedDto> {
    await this.limiter.consume(normalizeEmail(body.email), request.ip);
    await this.magicLinks.request(body.email);
    return { message: 'If the address can sign in, a sign-in link is on its way.' };
  }

  /** Redeem a sign-in link (single use, within 15 minutes) for a session token */
  @Post('magic-link/verify')
  @HttpCode(200)
  @ApiOkResponse({ type: SessionDto })
  @ApiUnauthorizedResponse({
    description: 'The link is invalid, expired or used (`reason` says which).',
    type: ErrorResponseDto,
  })
  @ApiTooManyRequestsResponse({
    description: 'Too many failed redemptions from the client address, of the link, or for its e-mail address.',
    type: RateLimitErrorResponseDto,
    headers: headerRefs('Retry-After'),
  })
  async verify(@Body() body: VerifyMagicLinkDto, @Req() request: FastifyRequest): Promise<SessionDto> {
    const result = await this.magicLinks.redeem(body.token, request.ip);
    if (!result.ok && result.reason === 'too_many_attempts')
      throw tooManySignInAttempts(TOO_MANY_REDEMPTIONS[result.scope], result.retryAfter);
    if (!result.ok)
      throw new UnauthorizedException(errorBody(REDEEM_FAILURES[result.reason], { reason: result.reason }));
    return {
      session_token: result.session.token,
      token_type: 'Bearer',
      expires_at: result.session.expiresAt.toISOString(),
      user: { id: result.user.id, email: result.user.email },
    };
  }

  /** The signed-in user */
  @Get('session')
  @UseGuards(SessionGuard)
  @ApiSessionAuth()
  @ApiOkResponse({ type: CurrentSessionDto })
  current(@CurrentSession() session: SessionUser): CurrentSessionDto {
    return { user: { id: session.userId, email: session.email }, operator: this.operators.isOperator(session) };
  }

  /** End the session */
  @Post('sign-out')
  @UseGuards(SessionGuard)
  @ApiSessionAuth()
  @ApiNoContentResponse({ description: 'Signed out.' })
  async signOut(@CurrentSession() session: SessionUser, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.sessions.revoke(session.sessionId);
    void reply.status(204);
  }
}
