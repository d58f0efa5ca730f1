import { SmtpSink, signInTokenFrom } from './support/smtp-sink.js';
import { type Json, type TestApp, call, dropSchema, startTestApp } from './support/test-app.js';

/** Failed redemptions a client address may make in the window (as many as the link requests it may make). */
const FAILURES_ALLOWED = 30;

/** A well-formed token that was never issued. */
const WRONG_TOKEN = 'x'.repeat(43);

/**
 * Redeeming sign-in links is limited per client address, like requesting them: after FAILURES_ALLOWED failed
 * redemptions (wrong, expired or used tokens) the address gets 429 with Retry-After, on every node and on both
 * redemption routes (POST /auth/magic-link/verify and the dashboard's POST /dashboard/session), even for a valid
 * token; successful redemptions do not count. Each test is a client address of its own (X-Forwarded-For, which these
 * apps trust as if behind a proxy: TRUST_PROXY=127.0.0.1). By default no X-Forwarded-For is believed, so a client
 * cannot buy a fresh allowance with a forged one.
 */
describe('sign-in link redemption: failures are limited per client address', () => {
  let smtp: SmtpSink;

  const verify = (app: TestApp, token: string, ip: string) =>
    call(app.url, 'POST', '/auth/magic-link/verify', { body: { token }, headers: { 'x-forwarded-for': ip } });
  const dashboardSession = (app: TestApp, token: string, ip: string) =>
    call(app.url, 'POST', '/dashboard/session', { body: { token }, headers: { 'x-forwarded-for': ip } });
  const freshToken = async (app: TestApp, email: string) => {
    const requested = await call(app.url, 'POST', '/auth/magic-link', { body: { email } });
    expect(requested.status).toBe(202);
    const mail = await smtp.waitForMail(email);
    smtp.messages.splice(smtp.messages.indexOf(mail), 1);
    return signInTokenFrom(mail);
  };
  const expectLimited = (refused: Json) => {
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(typeof refused.body.error).toBe('string');
    expect(refused.body.detail.error).toBe(refused.body.error);
    expect(refused.body.retry_after).toBe(retryAfter);
  };

  beforeAll(async () => {
    smtp = await SmtpSink.start();
  });
  afterAll(async () => {
    await smtp?.stop();
  });

  describe('with Redis, across two nodes', () => {
    let a: TestApp;
    let b: TestApp;

    beforeAll(async () => {
      a = await startTestApp({ env: { SMTP_URL: smtp.url, TRUST_PROXY: '127.0.0.1' } });
      b = await startTestApp({ schema: a.schema, env: { SMTP_URL: smtp.url, TRUST_PROXY: 'true' } });
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
      if (a) await dropSchema(a.schema);
    });

    test('401 until the limit, counted on both nodes, then 429 with Retry-After, even for a valid token', async () => {
      const ip = '203.0.113.10';
      for (let i = 0; i < FAILURES_ALLOWED; i++) {
        const failed = await verify(i % 2 === 0 ? a : b, WRONG_TOKEN, ip);
        expect({ attempt: i + 1, status: failed.status }).toEqual({ attempt: i + 1, status: 401 });
      }
      expectLimited(await verify(a, WRONG_TOKEN, ip));
      expectLimited(await verify(b, WRONG_TOKEN, ip));
      const token = await freshToken(a, 'limited@redeem.test');
      expectLimited(await verify(b, token, ip));
      expectLimited(await dashboardSession(a, token, ip));
      // The link was not spent: another address redeems it.
      expect((await verify(a, token, '203.0.113.11')).status).toBe(200);
    });

    test('successful redemptions do not count', async () => {
      const ip = '203.0.113.20';
      for (let i = 0; i < FAILURES_ALLOWED - 1; i++) expect((await verify(a, WRONG_TOKEN, ip)).status).toBe(401);
      for (const email of ['one@redeem.test', 'two@redeem.test']) {
        expect((await verify(b, await freshToken(a, email), ip)).status).toBe(200);
      }
      expect((await verify(a, WRONG_TOKEN, ip)).status).toBe(401);
      expectLimited(await verify(b, WRONG_TOKEN, ip));
    });

    test('the dashboard’s redemption route counts failures against the same limit', async () => {
      const ip = '203.0.113.30';
      for (let i = 0; i < FAILURES_ALLOWED; i++) {
        const route = i % 2 === 0 ? dashboardSession : verify;
        expect((await route(i % 3 === 0 ? a : b, WRONG_TOKEN, ip)).status).toBe(401);
      }
      expectLimited(await dashboardSession(a, WRONG_TOKEN, ip));
      expectLimited(await verify(b, WRONG_TOKEN, ip));
    });

    test('used and expired links are failures too; other addresses are not affected', async () => {
      const ip = '203.0.113.40';
      const token = await freshToken(a, 'reused@redeem.test');
      expect((await verify(a, token, ip)).status).toBe(200);
      for (let i = 0; i < FAILURES_ALLOWED; i++) expect((await verify(b, token, ip)).status).toBe(401);
      expectLimited(await verify(a, token, ip));
      expect((await verify(a, WRONG_TOKEN, '203.0.113.41')).status).toBe(401);
    });
  });

  describe('embedded mode (no Redis): the limit is kept in memory', () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await startTestApp({ redis: false, env: { SMTP_URL: smtp.url, TRUST_PROXY: '1' } });
    });
    afterAll(async () => {
      await app?.close();
      if (app) await dropSchema(app.schema);
    });

    test('401 until the limit, then 429 with Retry-After', async () => {
      const ip = '198.51.100.7';
      for (let i = 0; i < FAILURES_ALLOWED; i++) expect((await verify(app, WRONG_TOKEN, ip)).status).toBe(401);
      expectLimited(await verify(app, WRONG_TOKEN, ip));
      expectLimited(await dashboardSession(app, WRONG_TOKEN, ip));
    });
  });

  describe('without TRUST_PROXY (the default)', () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await startTestApp({ redis: false, env: { SMTP_URL: smtp.url } });
    });
    afterAll(async () => {
      await app?.close();
      if (app) await dropSchema(app.schema);
    });

    test('a forged X-Forwarded-For is not believed: every guess counts against the peer address', async () => {
      for (let i = 0; i < FAILURES_ALLOWED; i++) {
        const failed = await verify(app, WRONG_TOKEN, `198.51.100.${i + 1}`);
        expect({ attempt: i + 1, status: failed.status }).toEqual({ attempt: i + 1, status: 401 });
      }
      expectLimited(await verify(app, WRONG_TOKEN, '198.51.100.200'));
    });
  });
});
