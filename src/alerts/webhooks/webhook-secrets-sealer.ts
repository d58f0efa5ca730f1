import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { Database } from '../../database/database.js';
import { SEALED_PREFIX, WebhookSecretCipher } from './webhook-secret-cipher.js';

/**
 * On start, seals the webhook secrets stored in plaintext before encryption existed (migration path: they are read
 * as they are until then). Each row is replaced only if it still holds the plaintext read, so nodes starting together
 * seal each once. A failure is logged (never with a secret) and the row stays readable; the next start tries again.
 */
@Injectable()
export class WebhookSecretsSealer implements OnApplicationBootstrap {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly db: Database,
    private readonly cipher: WebhookSecretCipher,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      const sealed = await this.sealPlaintext();
      if (sealed > 0) this.logger.log(`encrypted ${sealed} webhook signing secrets stored in plaintext`);
    } catch (error) {
      this.logger.warn(
        `encrypting plaintext webhook secrets failed (tried again on the next start): ${(error as Error).message}`,
      );
    }
  }

  /** Seals every plaintext secret; returns how many it sealed. */
  async sealPlaintext(): Promise<number> {
    const { rows } = await this.db.query<{ endpoint_id: string; secret: string }>(
      `SELECT endpoint_id, secret FROM webhook_endpoints WHERE left(secret, ${SEALED_PREFIX.length}) <> $1`,
      [SEALED_PREFIX],
    );
    let sealed = 0;
    for (const row of rows) {
      const updated = await this.db.query(
        'UPDATE webhook_endpoints SET secret = $3 WHERE endpoint_id = $1 AND secret = $2',
        [row.endpoint_id, row.secret, this.cipher.seal(row.endpoint_id, row.secret)],
      );
      sealed += updated.rowCount ?? 0;
    }
    return sealed;
  }
}
