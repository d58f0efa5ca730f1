import { createHash, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../../config/app-config.js';

/** The key file used when WEBHOOK_SECRET_KEY is not set, in DATA_DIR. */
export const KEY_FILE = 'webhook-secret.key';

export interface WebhookSecretKey {
  readonly key: Buffer;
  /** Names the key in what it seals (not secret: 8 hex digits of a hash of it), so a wrong key is told apart. */
  readonly id: string;
  /** Where it came from, for messages: the variable, or the file's path. Never the key. */
  readonly source: string;
}

/** 64 hex digits or 44 characters of base64 (as the configuration validates it) to 32 bytes. */
export function parseKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new Error('a webhook secret key must be 32 bytes (64 hex digits or base64)');
  return key;
}

export function keyId(key: Buffer): string {
  return createHash('sha256').update('search-ledger webhook secret key\0').update(key).digest('hex').slice(0, 8);
}

/**
 * WEBHOOK_SECRET_KEY when set; otherwise the key in DATA_DIR/webhook-secret.key, created (32 random bytes, base64,
 * readable by its owner only) the first time one is needed. Two processes creating it at once agree: it is linked
 * into place exclusively, and the one that loses reads the winner's.
 */
export function loadWebhookSecretKey(config: Pick<AppConfig, 'webhookSecretKey' | 'dataDir'>): WebhookSecretKey {
  if (config.webhookSecretKey) {
    const key = parseKey(config.webhookSecretKey);
    return { key, id: keyId(key), source: 'WEBHOOK_SECRET_KEY' };
  }
  const file = path.resolve(config.dataDir, KEY_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(path.dirname(file), { recursive: true });
    // Written whole under another name, then linked into place: a reader never sees a half-written key.
    const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(draft, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
    try {
      linkSync(draft, file);
    } catch (linkError) {
      if ((linkError as NodeJS.ErrnoException).code !== 'EEXIST') throw linkError;
    } finally {
      unlinkSync(draft);
    }
    text = readFileSync(file, 'utf8');
  }
  const key = parseKey(text);
  return { key, id: keyId(key), source: file };
}
