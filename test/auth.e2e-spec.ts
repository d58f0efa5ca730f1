import { Database } from '../src/database/database.js';
import { EVENT_STORE, type EventStore } from '../src/event-store/event-store.port.js';
import { userEmailStream } from '../src/users/events/user.events.js';
import { signInTokenFrom } from './support/smtp-sink.js';
import { call, signIn, useTestApp } from './support/test-app.js';

describe('magic-link sign-in', () => {
  const app = useTestApp({ env: { MAIL_FROM: 'Search API <signin@example.test>' } });

  describe('200', () => {
    test('a link read from the delivered mail signs in, and the first sign-in registers the user once', async () => {
      const requested = await call(app.url, 'POST', '/auth/magic-link', { body: { email: 'Ada@Example.test' } });
      expect(requested.status).toBe(202);
      const mail = await app.smtp.waitForMail('ada@example.test');
      expect(mail.from?.text).toContain('signin@example.test');
      expect(mail.subject).toMatch(/sign-in link/i);
      const token = signInTokenFrom(mail);
      expect(mail.html).toContain(`${app.config.dashboardUrl}/sign-in?token=${token}`);

      const verified = await call(app.url, 'POST', '/auth/magic-link/verify', { body: { token } });
      expect(verified.status).toBe(200);
      expect(verified.body.session_token).toMatch(/^sess_[0-9A-Za-z]{43}$/);
      expect(verified.body.user.email).toBe('ada@example.test');
      const expiresIn = Date.parse(verified.body.expires_at) - Date.now();
      expect(expiresIn).toBeGreaterThan(29 * 86400_000);

      const me = await call(app.url, 'GET', '/auth/session', { token: verified.body.session_token });
      expect(me.status).toBe(200);
      expect(me.body.user).toEqual(verified.body.user);

      const again = await signIn(app, app.smtp, 'ada@example.test');
      const meAgain = await call(app.url, 'GET', '/auth/session', { token: again });
      expect(meAgain.body.user.id).toBe(verified.body.user.id);
      const store = app.app.get<EventStore>(EVENT_STORE);
      const registrations = await store.readStream(userEmailStream('ada@example.test'));
      expect(registrations.map((e) => e.type)).toEqual(['UserRegistered']);
    });

    test('tokens are stored only as hashes', async () => {
      await call(app.url, 'POST', '/auth/magic-link', { body: { email: 'hash@example.test' } });
      const token = signInTokenFrom(await app.smtp.waitForMail('hash@example.test'));
      const verified = await call(app.url, 'POST', '/auth/magic-link/verify', { body: { token } });
      const db = app.app.get(Database);
      const links = await db.query('SELECT * FROM auth_magic_links');
      const sessions = await db.query('SELECT * FROM auth_sessions');
      const stored = JSON.stringify([links.rows, sessions.rows]);
      expect(stored).not.toContain(token);
      expect(stored).not.toContain(verified.body.session_token);
    });
  });

  describe('202', () => {
    test('an unknown address gets the same answer as a known one', async () => {
      const unknown = await call(app.url, 'POST', '/auth/magic-link', { body: { email: 'nobody@example.test' } });
      await signIn(app, app.smtp, 'known@example.test');
      const known = await call(app.url, 'POST', '/auth/magic-link', { body: { email: 'known@example.test' } });
      expect(unknown.status).toBe(202);
      expect(known.status).toBe(202);
      expect(unknown.body).toEqual(known.body);
    });
  });

  describe('400', () => {
    test('a malformed body names the field', async () => {
      const bad = await call(app.url, 'POST', '/auth/magic-link', { body: { email: 'not-an-address' } });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/email/);
      expect(bad.body.detail.error).toBe(bad.body.error);
      const missing = await call(app.url, 'POST', '/auth/magic-link/verify', { body: {} });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toMatch(/token/);
      const notJson = await call(app.url, 'POST', '/auth/magic-link', { body: '{"email":', headers: {} });
      expect(notJson.status).toBe(400);
      expect(typeof notJson.body.error).toBe('string');
    });
  });

  describe('401', () => {
    test('a used link, an expired link and an unknown link are refused with a clear reason', async () => {
      await call(app.url, 'POST', '/auth/magic-link', { body: { email: 'once@example.test' } });
      const token = signInTokenFrom(await app.smtp.waitForMail('once@example.test'));
      expect((await call(app.url, 'POST', '/auth/magic-link/verify', { body: { token } })).status).toBe(200);
      const replay = await call(app.url, 'POST', '/auth/magic-link/verify', { body: { token } });
      expect(replay.status).toBe(401);
      expect(replay.body.error).toMatch(/already been used/);

      await call(app.url, 'POST', '/auth/magic-link', { body: { email: 'late@example.test' } });
      const late = signInTokenFrom(await app.smtp.waitForMail('late@example.test'));
      await app.app
        .get(Database)
        .query(
          `UPDATE auth_magic_links SET expires_at = now() - interval '1 second' WHERE email = 'late@example.test'`,
        );
      const expired = await call(app.url, 'POST', '/auth/magic-link/verify', { body: { token: late } });
      expect(expired.status).toBe(401);
      expect(expired.body.error).toMatch(/expired/);

      const unknown = await call(app.url, 'POST', '/auth/magic-link/verify', { body: { token: 'x'.repeat(43) } });
      expect(unknown.status).toBe(401);
      expect(unknown.body.error).toMatch(/not valid/);
    });

    test('a redeemed link redeems once even under concurrent attempts', async () => {
      await call(app.url, 'POST', '/auth/magic-link', { body: { email: 'race@example.test' } });
      const token = signInTokenFrom(await app.smtp.waitForMail('race@example.test'));
      const attempts = await Promise.all(
        Array.from({ length: 5 }, () => call(app.url, 'POST', '/auth/magic-link/verify', { body: { token } })),
      );
      expect(attempts.filter((a) => a.status === 200)).toHaveLength(1);
      expect(attempts.filter((a) => a.status === 401)).toHaveLength(4);
    });

    test('signing out ends the session; API keys and garbage are not session tokens', async () => {
      const session = await signIn(app, app.smtp, 'leaving@example.test');
      expect((await call(app.url, 'POST', '/auth/sign-out', { token: session })).status).toBe(204);
      expect((await call(app.url, 'GET', '/auth/session', { token: session })).status).toBe(401);
      expect((await call(app.url, 'GET', '/orgs', { token: 'sk_live_' + 'a'.repeat(32) })).status).toBe(401);
      expect((await call(app.url, 'GET', '/orgs', {})).status).toBe(401);
      const garbage = await call(app.url, 'GET', '/orgs', { token: 'sess_nope' });
      expect(garbage.status).toBe(401);
      expect(garbage.body.error).toMatch(/session/);
    });
  });

  describe('429', () => {
    test('sign-in requests for one address are rate limited', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        statuses.push(
          (await call(app.url, 'POST', '/auth/magic-link', { body: { email: 'flood@example.test' } })).status,
        );
      }
      expect(statuses.slice(0, 5)).toEqual([202, 202, 202, 202, 202]);
      expect(statuses.slice(5)).toEqual([429, 429]);
    });
  });
});
