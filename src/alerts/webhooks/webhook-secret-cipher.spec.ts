import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AppConfig } from '../../config/app-config.js';
import { WebhookSecretCipher, WebhookSecretUnreadableError } from './webhook-secret-cipher.js';
import { KEY_FILE, loadWebhookSecretKey, parseKey } from './webhook-secret-key.js';
import { newWebhookSecret } from './webhook-signature.js';

const cipherWith = (settings: Partial<AppConfig>) =>
  new WebhookSecretCipher({
    mode: 'embedded',
    dataDir: '/nonexistent',
    webhookSecretKey: null,
    ...settings,
  } as AppConfig);

describe('webhook secrets at rest', () => {
  const hexKey = randomBytes(32).toString('hex');
  const cipher = cipherWith({ webhookSecretKey: hexKey });

  test('sealed with AES-256-GCM: v1:<key id>:<nonce>:<tag>:<ciphertext>, opened back, never the same twice', () => {
    const endpoint = randomUUID();
    const secret = newWebhookSecret();
    const sealed = cipher.seal(endpoint, secret);
    expect(sealed).toMatch(/^v1:[0-9a-f]{8}:[\w-]{16}:[\w-]{22}:[\w-]+$/);
    expect(sealed).not.toContain(secret);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(cipher.open(endpoint, sealed)).toBe(secret);
    expect(cipher.seal(endpoint, secret)).not.toBe(sealed);
  });

  test('a plaintext secret stored before encryption is read as it is', () => {
    const secret = newWebhookSecret();
    expect(cipher.open(randomUUID(), secret)).toBe(secret);
  });

  test('another endpoint, another key, or a changed byte: unreadable, and the message holds no secret', () => {
    const endpoint = randomUUID();
    const secret = newWebhookSecret();
    const sealed = cipher.seal(endpoint, secret);
    expect(() => cipher.open(randomUUID(), sealed)).toThrow(WebhookSecretUnreadableError);
    const other = cipherWith({ webhookSecretKey: randomBytes(32).toString('base64') });
    expect(() => other.open(endpoint, sealed)).toThrow(/sealed under key [0-9a-f]{8}, this server's key/);
    const parts = sealed.split(':');
    const bytes = Buffer.from(parts[4]!, 'base64url');
    bytes[0] = bytes[0]! ^ 1;
    const flipped = [...parts.slice(0, 4), bytes.toString('base64url')].join(':');
    expect(() => cipher.open(endpoint, flipped)).toThrow(WebhookSecretUnreadableError);
    try {
      other.open(endpoint, sealed);
    } catch (error) {
      expect((error as Error).message).not.toContain(hexKey);
    }
  });

  test('the key: WEBHOOK_SECRET_KEY as hex or base64, or a key file made once in DATA_DIR (owner only)', () => {
    const key = randomBytes(32);
    expect(parseKey(key.toString('hex'))).toEqual(key);
    expect(parseKey(key.toString('base64'))).toEqual(key);
    expect(() => parseKey('c2hvcnQ=')).toThrow(/32 bytes/);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'webhook-key-'));
    try {
      const first = loadWebhookSecretKey({ dataDir, webhookSecretKey: null });
      const file = path.join(dataDir, KEY_FILE);
      expect(first.source).toBe(file);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(loadWebhookSecretKey({ dataDir, webhookSecretKey: null }).key).toEqual(first.key);
      expect(parseKey(readFileSync(file, 'utf8'))).toEqual(first.key);
      const endpoint = randomUUID();
      const sealed = cipherWith({ dataDir }).seal(endpoint, 'whsec_x');
      expect(cipherWith({ dataDir }).open(endpoint, sealed)).toBe('whsec_x');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
