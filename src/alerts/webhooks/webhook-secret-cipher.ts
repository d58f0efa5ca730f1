import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { type WebhookSecretKey, loadWebhookSecretKey } from './webhook-secret-key.js';

/** What a sealed secret starts with; a stored secret without it is a plaintext one from before encryption. */
export const SEALED_PREFIX = 'v1:';

/** A sealed secret that this server's key cannot open (another key, or a damaged value). */
export class WebhookSecretUnreadableError extends Error {
  constructor(reason: string) {
    super(`the endpoint's signing secret cannot be read: ${reason}`);
    this.name = 'WebhookSecretUnreadableError';
  }
}

const b64 = (buffer: Buffer) => buffer.toString('base64url');

/**
 * Webhook signing secrets at rest: AES-256-GCM under WEBHOOK_SECRET_KEY (or the key file in DATA_DIR), a random
 * 96-bit nonce per secret, the endpoint's id as associated data (a sealed secret copied to another endpoint does not
 * open), stored as `v1:<key id>:<nonce>:<tag>:<ciphertext>` (base64url). A stored value without the `v1:` prefix is
 * a plaintext secret written before encryption: it is read as it is (and sealed on start, see
 * webhook-secrets-sealer.ts). The key is loaded the first time it is needed, and never logged.
 */
@Injectable()
export class WebhookSecretCipher {
  private readonly logger = new Logger('Webhooks');
  private loaded: WebhookSecretKey | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  private get key(): WebhookSecretKey {
    if (!this.loaded) {
      this.loaded = loadWebhookSecretKey(this.config);
      if (!this.config.webhookSecretKey && this.config.mode === 'services') {
        this.logger.warn(
          `WEBHOOK_SECRET_KEY is not set: webhook signing secrets are encrypted under the key in ${this.loaded.source}; ` +
            'every node must use the same key: set WEBHOOK_SECRET_KEY (docs/configuration.md)',
        );
      }
    }
    return this.loaded;
  }

  seal(endpointId: string, secret: string): string {
    const { key, id } = this.key;
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from(endpointId));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return `${SEALED_PREFIX}${id}:${b64(nonce)}:${b64(cipher.getAuthTag())}:${b64(sealed)}`;
  }

  /** The secret of a stored value: sealed (`v1:`) or, from before encryption, plaintext. */
  open(endpointId: string, stored: string): string {
    if (!isSealed(stored)) return stored;
    const [id, nonce, tag, sealed] = stored.slice(SEALED_PREFIX.length).split(':');
    if (!id || !nonce || !tag || sealed === undefined) throw new WebhookSecretUnreadableError('malformed value');
    const { key, id: ours } = this.key;
    if (id !== ours) {
      throw new WebhookSecretUnreadableError(
        `sealed under key ${id}, this server's key (${this.key.source}) is ${ours}`,
      );
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
      decipher.setAAD(Buffer.from(endpointId));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new WebhookSecretUnreadableError('it does not authenticate (damaged, or not this endpoint’s)');
    }
  }
}

export const isSealed = (stored: string) => stored.startsWith(SEALED_PREFIX);
