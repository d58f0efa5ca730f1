import { Module } from '@nestjs/common';
import { AlertDeliveriesRepository } from './alert-deliveries.repository.js';
import { AlertDeliveryRetention } from './alert-delivery-retention.js';
import { AlertDeliveryWorker } from './alert-delivery.worker.js';
import { AlertLimits } from './alert-limits.js';
import { AlertOutbox } from './alert-outbox.js';
import { AlertsController } from './alerts.controller.js';
import { SetAlertThresholdsHandler } from './commands/set-alert-thresholds.handler.js';
import { ThresholdWatcher } from './threshold-watcher.js';
import { WebhookDeliveryLog } from './webhooks/webhook-delivery-log.js';
import { WebhookSecretCipher } from './webhooks/webhook-secret-cipher.js';
import { WebhookSecretsSealer } from './webhooks/webhook-secrets-sealer.js';
import { WebhookSender } from './webhooks/webhook-sender.js';
import { WebhooksController } from './webhooks/webhooks.controller.js';

/**
 * Alerts before the cut-off: thresholds per limit (events), one AlertThresholdCrossed per organization, scope, month
 * and threshold (ThresholdWatcher), delivered by signed webhooks and e-mail to owners from an outbox
 * (AlertDeliveryWorker), finished deliveries pruned after ALERT_DELIVERY_RETENTION_DAYS (AlertDeliveryRetention).
 */
@Module({
  controllers: [AlertsController, WebhooksController],
  providers: [
    SetAlertThresholdsHandler,
    AlertLimits,
    AlertOutbox,
    ThresholdWatcher,
    AlertDeliveriesRepository,
    AlertDeliveryWorker,
    AlertDeliveryRetention,
    WebhookSender,
    WebhookDeliveryLog,
    WebhookSecretCipher,
    WebhookSecretsSealer,
  ],
})
export class AlertsModule {}
