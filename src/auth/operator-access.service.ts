import { Inject, Injectable } from '@nestjs/common';
import type { SessionUser } from './session.service.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { normalizeEmail } from '../common/email-address.js';

/**
 * The server's operators, on the control plane: users signed in with an address OPERATOR_EMAILS names. Being one is
 * a property of the server, not of an organization (an organization's owner is no operator unless listed).
 */
@Injectable()
export class OperatorAccess {
  private readonly emails: ReadonlySet<string>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.emails = new Set(config.operatorEmails);
  }

  isOperator(session: SessionUser): boolean {
    return this.emails.has(normalizeEmail(session.email));
  }
}
