import { Inject, Injectable, Logger } from '@nestjs/common';
import { MailerService } from '../auth/mailer.service.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { MemberRole } from './events/organization.events.js';

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Tells a new member they were added: which organization, which role, by whom, and where to sign in (with this very
 * address). A mail that cannot be sent is logged, never a failure of the membership, which is already recorded.
 */
@Injectable()
export class MemberInvitations {
  private readonly logger = new Logger('MemberInvitations');

  constructor(
    private readonly mailer: MailerService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async send(to: string, organization: string, role: MemberRole, addedBy: string): Promise<void> {
    const link = `${this.config.dashboardUrl}/`;
    const article = role === 'admin' || role === 'owner' ? 'an' : 'a';
    const line = `${addedBy} added you to ${organization} as ${article} ${role}.`;
    const signIn = `Sign in to the dashboard with this address (${to}): you will get a sign-in link by mail.`;
    try {
      await this.mailer.send({
        to,
        subject: `You were added to ${organization}`,
        text: `${line}\n\n${signIn}\n\n${link}\n`,
        html: `<p>${escapeHtml(line)}</p><p>${escapeHtml(signIn)}</p><p><a href="${escapeHtml(link)}">${escapeHtml(
          link,
        )}</a></p>`,
      });
    } catch (error) {
      this.logger.error(`sending the invitation mail failed: ${(error as Error).message}`);
    }
  }
}
