import { createHmac } from 'node:crypto';
import { randomBase62, secretsEqual } from '../../common/secrets.js';

/** The header that carries `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, as Stripe's does. */
export const SIGNATURE_HEADER = 'search-ledger-signature';
/** The alert event's id: the same on every attempt and replay of one delivery, for receivers to drop duplicates. */
export const EVENT_ID_HEADER = 'search-ledger-event-id';

export function newWebhookSecret(): string {
  return `whsec_${randomBase62(40)}`;
}

export function signatureOf(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

export function signatureHeader(secret: string, body: string, now: Date = new Date()): string {
  const t = Math.floor(now.getTime() / 1000);
  return `t=${t},v1=${signatureOf(secret, t, body)}`;
}

/**
 * Whether `header` signs `body` with `secret` within `toleranceSeconds` of `now`, compared in constant time: what a
 * receiver does (docs/metering.md shows the same in a few lines for receivers to copy).
 */
export function verifySignature(
  secret: string,
  header: string,
  body: string,
  now: Date = new Date(),
  toleranceSeconds = 300,
): boolean {
  const parts = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const given = parts.get('v1');
  if (!Number.isInteger(t) || !given || Math.abs(now.getTime() / 1000 - t) > toleranceSeconds) return false;
  return secretsEqual(given, signatureOf(secret, t, body));
}
