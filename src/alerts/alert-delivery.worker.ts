import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { MailerService } from '../auth/mailer.service.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Database } from '../database/database.js';
import { alertMail } from './alert-mail.js';
import { AlertDeliveriesRepository, type AttemptOutcome, type ClaimedDelivery } from './alert-deliveries.repository.js';
import { WebhookSecretCipher } from './webhooks/webhook-secret-cipher.js';
import { WebhookSender } from './webhooks/webhook-sender.js';

const ENDPOINT_DELETED = 'endpoint deleted';

/**
 * Every node delivers what is due in the outbox: it claims one delivery at a time under a lease longer than an
 * attempt can take, so no two nodes make the same attempt, and a node killed mid-attempt leaves its claim to
 * another once the lease lapses. A failed attempt is tried again after the next wait of WEBHOOK_RETRY_DELAYS_MS
 * (exponential, about 3 days in all by default); once those are spent the delivery has failed (a replay restarts it).
 */
@Injectable()
export class AlertDeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AlertDelivery');
  readonly node = `${process.pid}-${randomUUID().slice(0, 8)}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly deliveries: AlertDeliveriesRepository,
    private readonly webhooks: WebhookSender,
    private readonly mailer: MailerService,
    private readonly cipher: WebhookSecretCipher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A claim outlives the longest attempt (its timeout) with room to record it. */
  get leaseMs(): number {
    return this.config.webhookTimeoutMs * 2 + 1000;
  }

  onApplicationBootstrap(): void {
    if (this.config.runProjections) this.schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.deliverDue()
        .catch((error: Error) => this.logger.error(`alert deliveries: ${error.message}`))
        .finally(() => this.schedule());
    }, this.config.alertsPollMs);
  }

  /** Delivers every due delivery it can claim. */
  async deliverDue(): Promise<void> {
    while (!this.stopped) {
      const delivery = await this.deliveries.claim(this.node, this.leaseMs);
      if (!delivery) return;
      const outcome = await this.attempt(delivery);
      const retry = outcome.ok || outcome.error === ENDPOINT_DELETED ? null : this.retryIn(delivery);
      await this.deliveries.finish(delivery, this.node, outcome, retry);
    }
  }

  private retryIn(delivery: ClaimedDelivery): number | null {
    return this.config.webhookRetryDelaysMs[delivery.attempts - delivery.attempts_before_replay - 1] ?? null;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<AttemptOutcome> {
    if (delivery.channel === 'email') return this.mail(delivery);
    const endpoint = (
      await this.db.query<{ url: string; secret: string; deleted_at: Date | null }>(
        'SELECT url, secret, deleted_at FROM webhook_endpoints WHERE endpoint_id = $1',
        [delivery.endpoint_id],
      )
    ).rows[0];
    if (!endpoint || endpoint.deleted_at) {
      return { startedAt: new Date(), durationMs: 0, statusCode: null, error: ENDPOINT_DELETED, ok: false };
    }
    let secret: string;
    try {
      secret = this.cipher.open(delivery.endpoint_id!, endpoint.secret);
    } catch (error) {
      // Another WEBHOOK_SECRET_KEY than the one it was sealed under: retried on the schedule, and said in the log.
      const message = (error as Error).message;
      return { startedAt: new Date(), durationMs: 0, statusCode: null, error: message.slice(0, 300), ok: false };
    }
    return this.webhooks.send({ url: endpoint.url, secret }, delivery.payload);
  }

  private async mail(delivery: ClaimedDelivery): Promise<AttemptOutcome> {
    const startedAt = new Date();
    try {
      await this.mailer.send(alertMail(delivery.email!, delivery.payload, this.config.dashboardUrl));
      return { startedAt, durationMs: Date.now() - startedAt.getTime(), statusCode: null, error: null, ok: true };
    } catch (error) {
      const message = (error as Error).message.slice(0, 300);
      return { startedAt, durationMs: Date.now() - startedAt.getTime(), statusCode: null, error: message, ok: false };
    }
  }
}
