import { Inject, Injectable, Logger } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

export interface OutgoingMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** SMTP through nodemailer when SMTP_URL is set; otherwise a development outbox that prints each mail to the log. */
@Injectable()
export class MailerService {
  private readonly logger = new Logger('Mail');
  private readonly transport: Transporter | null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.transport = config.smtpUrl ? nodemailer.createTransport(config.smtpUrl) : null;
  }

  async send(mail: OutgoingMail): Promise<void> {
    if (!this.transport) {
      this.logger.warn(`dev outbox (SMTP_URL is not set) — to ${mail.to}: ${mail.subject}\n${mail.text}`);
      return;
    }
    await this.transport.sendMail({ from: this.config.mailFrom, ...mail });
  }
}
