import { SmtpSink, signInTokenFrom } from './support/smtp-sink.js';
import { type Json, type TestApp, call, dropSchema, startTestApp } from './support/test-app.js';

/**
 * Failed redemptions that lock what they are counted against, per 15-minute window: a client address (shared by
 * everyone behind one NAT: only a flood locks it), one link, and the e-mail address of the failed links.
 */
const ALLOWED = { address: 300, link: 5, email: 10 } as const;
const MESSAGES = {
  address: 'too many failed sign-in attempts from this address; try again later',
  link: 'too many failed attempts with this sign-in link; ask for a new link',
  email: 'too many failed sign-in attempts for this e-mail address; try again later',
} as const;

/** A well-formed token that was never issued. */
const WRONG_TOKEN = 'x'.repeat(43);

/**
 * Redeeming sign-in links is limited by failures (wrong, expired or used tokens), on every node and on both redemption
 * routes (POST /auth/magic-link/verify and the dashboard's POST /dashboard/session); successful redemptions do not
 * count. A link that keeps failing locks itself, the failed links of one e-mail address lock that address's sign-ins
 * (even with a valid link), and a client address is locked only after ALLOWED.address failures, so that one person
 * behind a NAT does not lock out everyone else there. Each test is a client address of its own (X-Forwarded-For,
 * which these apps trust as if behind a proxy: TRUST_PROXY=127.0.0.1). By default no X-Forwarded-For is believed, so
 * a client cannot buy a fresh allowance with a forged one.
 */
describe('sign-in link redemption: failures are limited per link, per e-mail address and per client address', () => {
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
  const expectLimited = (refused: Json, scope: keyof typeof MESSAGES) => {
    expect({ status: refused.status, error: refused.body?.error }).toEqual({ status: 429, error: MESSAGES[scope] });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(refused.body.detail.error).toBe(refused.body.error);
    expect(refused.body.retry_after).toBe(retryAfter);
  };
  /** `count` failed redemptions of `token` from `ip`, each a 401, spread over the nodes. */
  const fail = async (nodes: TestApp[], token: string, ip: string, count: number) => {
    for (let i = 0; i < count; i++) {
      const failed = await verify(nodes[i % nodes.length]!, token, ip);
      expect({ attempt: i + 1, status: failed.status }).toEqual({ attempt: i + 1, status: 401 });
    }
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

    test('behind one address (a NAT), many failures of one person do not lock out the others', async () => {
      const ip = '203.0.113.5';
      await fail([a, b], WRONG_TOKEN, ip, 40);
      const token = await freshToken(a, 'colleague@redeem.test');
      expect((await verify(b, token, ip)).status).toBe(200);
    });

    test('the address is locked after its failures, counted on both nodes: 429 with Retry-After, even for a valid link', async () => {
      const ip = '203.0.113.10';
      await fail([a, b], WRONG_TOKEN, ip, ALLOWED.address);
      expectLimited(await verify(a, WRONG_TOKEN, ip), 'address');
      expectLimited(await verify(b, WRONG_TOKEN, ip), 'address');
      const token = await freshToken(a, 'limited@redeem.test');
      expectLimited(await verify(b, token, ip), 'address');
      expectLimited(await dashboardSession(a, token, ip), 'address');
      // The link was not spent: another address redeems it.
      expect((await verify(a, token, '203.0.113.11')).status).toBe(200);
    });

    test('successful redemptions do not count', async () => {
      const ip = '203.0.113.20';
      await fail([a], WRONG_TOKEN, ip, ALLOWED.address - 1);
      for (const email of ['one@redeem.test', 'two@redeem.test']) {
        expect((await verify(b, await freshToken(a, email), ip)).status).toBe(200);
      }
      expect((await verify(a, WRONG_TOKEN, ip)).status).toBe(401);
      expectLimited(await verify(b, WRONG_TOKEN, ip), 'address');
    });

    test('the dashboard’s redemption route counts failures against the same limits', async () => {
      const ip = '203.0.113.30';
      for (let i = 0; i < ALLOWED.address; i++) {
        const route = i % 2 === 0 ? dashboardSession : verify;
        expect((await route(i % 3 === 0 ? a : b, WRONG_TOKEN, ip)).status).toBe(401);
      }
      expectLimited(await dashboardSession(a, WRONG_TOKEN, ip), 'address');
      expectLimited(await verify(b, WRONG_TOKEN, ip), 'address');
    });

    test('a used link tried again is locked after its failures, for every address; nothing else is', async () => {
      const ip = '203.0.113.40';
      const token = await freshToken(a, 'reused@redeem.test');
      expect((await verify(a, token, ip)).status).toBe(200);
      await fail([b, a], token, ip, ALLOWED.link);
      expectLimited(await verify(a, token, ip), 'link');
      expectLimited(await dashboardSession(b, token, '203.0.113.41'), 'link');
      expect((await verify(a, WRONG_TOKEN, ip)).status).toBe(401);
      expect((await verify(b, await freshToken(a, 'next@redeem.test'), ip)).status).toBe(200);
    });

    test('the failed links of one e-mail address lock its sign-ins, with a valid link too; other addresses are not', async () => {
      const email = 'replayed@redeem.test';
      const used = [await freshToken(a, email), await freshToken(a, email)];
      for (const token of used) expect((await verify(a, token, '203.0.113.50')).status).toBe(200);
      // Failures of each link up to its own limit, from two client addresses: together, the e-mail address's.
      for (const [i, token] of used.entries()) await fail([a, b], token, `203.0.113.5${i + 1}`, ALLOWED.link);
      expect(used.length * ALLOWED.link).toBe(ALLOWED.email);
      const valid = await freshToken(a, email);
      expectLimited(await verify(b, valid, '203.0.113.53'), 'email');
      expectLimited(await dashboardSession(a, valid, '203.0.113.54'), 'email');
      expect((await verify(a, await freshToken(a, 'other@redeem.test'), '203.0.113.53')).status).toBe(200);
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

    test('401 until the limits, then 429 with Retry-After: a link, then the address', async () => {
      const ip = '198.51.100.7';
      const token = await freshToken(app, 'embedded@redeem.test');
      expect((await verify(app, token, ip)).status).toBe(200);
      await fail([app], token, ip, ALLOWED.link);
      expectLimited(await verify(app, token, ip), 'link');
      // The address has counted the link's failures and its refused attempt.
      await fail([app], WRONG_TOKEN, ip, ALLOWED.address - (ALLOWED.link + 1));
      expectLimited(await verify(app, WRONG_TOKEN, ip), 'address');
      expectLimited(await dashboardSession(app, WRONG_TOKEN, ip), 'address');
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
      for (let i = 0; i < ALLOWED.address; i++) {
        const failed = await verify(app, WRONG_TOKEN, `198.51.${100 + (i >> 8)}.${i & 255}`);
        expect({ attempt: i + 1, status: failed.status }).toEqual({ attempt: i + 1, status: 401 });
      }
      expectLimited(await verify(app, WRONG_TOKEN, '198.51.100.200'), 'address');
    });
  });
});
