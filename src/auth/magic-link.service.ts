import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { randomBase62, sha256Hex } from '../common/secrets.js';
import { Database } from '../database/database.js';
import { RegisterUserCommand } from '../users/commands/register-user.command.js';
import { normalizeEmail } from '../common/email-address.js';
import { MailerService } from './mailer.service.js';
import { type IssuedLink, RedemptionLimiter, type RedemptionScope } from './redemption-limiter.js';
import { type IssuedSession, SessionService } from './session.service.js';

const MAGIC_TOKEN = /^[0-9A-Za-z]{43}$/;

export type RedeemResult =
  | { ok: true; session: IssuedSession; user: { id: string; email: string; created: boolean } }
  | { ok: false; reason: 'invalid' | 'expired' | 'used' }
  | { ok: false; reason: 'too_many_attempts'; retryAfter: number; scope: RedemptionScope };

@Injectable()
export class MagicLinkService {
  private readonly logger = new Logger('MagicLink');

  constructor(
    private readonly db: Database,
    private readonly mailer: MailerService,
    private readonly sessions: SessionService,
    private readonly commands: CommandBus,
    private readonly limiter: RedemptionLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Stores the hash of a fresh single-use token and mails the link; the caller answers 202 whatever happens. */
  async request(email: string): Promise<void> {
    const address = normalizeEmail(email);
    const token = randomBase62(43);
    const expiresAt = new Date(Date.now() + this.config.magicLinkTtlSeconds * 1000);
    await this.db.query('INSERT INTO auth_magic_links (token_hash, email, expires_at) VALUES ($1, $2, $3)', [
      sha256Hex(token),
      address,
      expiresAt,
    ]);
    const link = `${this.config.dashboardUrl}/sign-in?token=${token}`;
    const minutes = Math.round(this.config.magicLinkTtlSeconds / 60);
    try {
      await this.mailer.send({
        to: address,
        subject: 'Your sign-in link',
        text: `Sign in to the dashboard with this link (valid for ${minutes} minutes, usable once):\n\n${link}\n\nIf you did not ask for it, ignore this mail.`,
        html: `<p>Sign in to the dashboard with this link (valid for ${minutes} minutes, usable once):</p><p><a href="${link}">${link}</a></p><p>If you did not ask for it, ignore this mail.</p>`,
      });
    } catch (error) {
      this.logger.error(`sending the sign-in mail failed: ${(error as Error).message}`);
    }
  }

  /**
   * Redeems a link for the client at `clientIp`, unless that address, the link or its e-mail address has failed too
   * often (RedemptionLimiter): every route that redeems links goes through here. An attempt that throws (the
   * database away) is no failure of the token: its points are given back.
   */
  async redeem(token: string, clientIp: string): Promise<RedeemResult> {
    const byAddress = await this.limiter.takeAddress(clientIp);
    if (byAddress) return { ok: false, reason: 'too_many_attempts', ...byAddress };
    let link: IssuedLink | null = null;
    let result: RedeemResult;
    try {
      link = await this.issuedLink(token);
      const byLink = link ? await this.limiter.takeLink(link) : null;
      if (byLink) return { ok: false, reason: 'too_many_attempts', ...byLink };
      result = link ? await this.redeemToken(link.tokenHash) : { ok: false, reason: 'invalid' };
    } catch (error) {
      await this.limiter.giveBack(clientIp, link).catch(() => {});
      throw error;
    }
    if (result.ok) await this.limiter.giveBack(clientIp, link);
    return result;
  }

  /** The link a token names (by the hash stored for it), or null when it names none. */
  private async issuedLink(token: string): Promise<IssuedLink | null> {
    if (!MAGIC_TOKEN.test(token)) return null;
    const tokenHash = sha256Hex(token);
    const found = await this.db.query<{ email: string }>('SELECT email FROM auth_magic_links WHERE token_hash = $1', [
      tokenHash,
    ]);
    const email = found.rows[0]?.email;
    return email === undefined ? null : { tokenHash, email };
  }

  /** Marks the link used (atomically, so it redeems once), registers the user on first sign-in, opens a session. */
  private async redeemToken(hash: string): Promise<RedeemResult> {
    const used = await this.db.query<{ email: string }>(
      `UPDATE auth_magic_links SET used_at = now()
       WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING email`,
      [hash],
    );
    const email = used.rows[0]?.email;
    if (!email) {
      const known = await this.db.query<{ used_at: Date | null }>(
        'SELECT used_at FROM auth_magic_links WHERE token_hash = $1',
        [hash],
      );
      const row = known.rows[0];
      return { ok: false, reason: !row ? 'invalid' : row.used_at ? 'used' : 'expired' };
    }
    const user = await this.commands.execute(new RegisterUserCommand(email, { type: 'system', id: 'magic-link' }));
    const session = await this.sessions.issue({ userId: user.userId, email: user.email });
    return { ok: true, session, user: { id: user.userId, email: user.email, created: user.created } };
  }
}
