import { createHmac } from 'node:crypto';
import { newWebhookSecret, signatureHeader, signatureOf, verifySignature } from './webhook-signature.js';

describe('webhook signatures', () => {
  test('t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> with the endpoint secret', () => {
    const secret = newWebhookSecret();
    const body = '{"id":"e1","type":"alert.threshold_crossed"}';
    const header = signatureHeader(secret, body, new Date('2026-11-29T04:00:00.500Z'));
    const t = Date.parse('2026-11-29T04:00:00Z') / 1000;
    expect(header).toBe(`t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`);
    expect(signatureOf(secret, t, `${body} `)).not.toBe(signatureOf(secret, t, body));
    expect(signatureOf(newWebhookSecret(), t, body)).not.toBe(signatureOf(secret, t, body));
  });

  test('secrets are whsec_ and 40 base62 characters, each new', () => {
    const secrets = Array.from({ length: 20 }, newWebhookSecret);
    for (const secret of secrets) expect(secret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
    expect(new Set(secrets).size).toBe(20);
  });

  test('a receiver verifies the body, the secret and the time (five minutes either way), in constant time', () => {
    const secret = newWebhookSecret();
    const body = '{"id":"e2"}';
    const at = new Date('2026-11-29T04:00:00Z');
    const header = signatureHeader(secret, body, at);
    expect(verifySignature(secret, header, body, at)).toBe(true);
    expect(verifySignature(secret, header, body, new Date(at.getTime() + 299_000))).toBe(true);
    expect(verifySignature(secret, header, body, new Date(at.getTime() + 301_000))).toBe(false);
    expect(verifySignature(secret, header, `${body} `, at)).toBe(false);
    expect(verifySignature(newWebhookSecret(), header, body, at)).toBe(false);
    expect(verifySignature(secret, 'v1=abc', body, at)).toBe(false);
  });
});
