import { Global, Module } from '@nestjs/common';
import { AuthController } from './auth.controller.js';
import { MagicLinkService } from './magic-link.service.js';
import { MailerService } from './mailer.service.js';
import { OperatorAccess } from './operator-access.service.js';
import { SessionGuard } from './session.guard.js';
import { SessionService } from './session.service.js';
import { RedemptionLimiter } from './redemption-limiter.js';
import { SignInLimiter } from './sign-in-limiter.js';

@Global()
@Module({
  controllers: [AuthController],
  providers: [
    MagicLinkService,
    MailerService,
    OperatorAccess,
    SessionService,
    SessionGuard,
    SignInLimiter,
    RedemptionLimiter,
  ],
  exports: [OperatorAccess, SessionService, SessionGuard, MailerService],
})
export class AuthModule {}
