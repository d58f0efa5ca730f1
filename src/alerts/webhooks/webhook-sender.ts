import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Agent, request } from 'undici';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { AddressPolicy } from '../../fetch/address-policy.js';
import { createSafeConnector } from '../../fetch/safe-lookup.js';
import type { AttemptOutcome } from '../alert-deliveries.repository.js';
import type { AlertPayload } from '../alert-outbox.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from './webhook-signature.js';

/** What an attempt's error says: short, and never the secret or the body. */
const MAX_ERROR = 300;

/**
 * POSTs a signed alert to a webhook endpoint through the fetcher's SSRF rules, judged again on every connection
 * (after DNS resolution, so a name that moved to a private address since registration is refused), unless
 * WEBHOOK_ALLOW_HOSTS names it. No redirects are followed; any 2xx answer is a delivery.
 */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  readonly policy: AddressPolicy;
  private readonly agent: Agent;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.policy = new AddressPolicy(config.webhookAllowHosts);
    this.agent = new Agent({
      connect: createSafeConnector({ policy: this.policy, connectTimeoutMs: config.webhookTimeoutMs }),
      headersTimeout: config.webhookTimeoutMs,
      bodyTimeout: config.webhookTimeoutMs,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.agent.close().catch(() => {});
  }

  async send(endpoint: { url: string; secret: string }, payload: AlertPayload): Promise<AttemptOutcome> {
    const body = JSON.stringify(payload);
    const startedAt = new Date();
    const outcome = (statusCode: number | null, error: string | null): AttemptOutcome => ({
      startedAt,
      durationMs: Date.now() - startedAt.getTime(),
      statusCode,
      error: error === null ? null : error.slice(0, MAX_ERROR),
      ok: statusCode !== null && statusCode >= 200 && statusCode < 300,
    });
    try {
      const response = await request(endpoint.url, {
        method: 'POST',
        dispatcher: this.agent,
        body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'SearchLedger-Webhooks/1',
          [SIGNATURE_HEADER]: signatureHeader(endpoint.secret, body),
          [EVENT_ID_HEADER]: payload.id,
        },
        signal: AbortSignal.timeout(this.config.webhookTimeoutMs),
      });
      await response.body.dump().catch(() => {});
      return outcome(response.statusCode, null);
    } catch (error) {
      return outcome(null, (error as Error).message || (error as Error).name);
    }
  }
}
