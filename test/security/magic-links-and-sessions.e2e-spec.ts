import { randomBase62 } from '../../src/common/secrets.js';
import { Database } from '../../src/database/database.js';
import { signInTokenFrom } from '../support/smtp-sink.js';
import { call, setUpOrganization, signIn, useTestApp } from '../support/test-app.js';
import { sha256Hex } from './security-support.js';

/**
 * Issue 8, security item 2: magic links work once and only until they expire, whichever route redeems them; a
 * session token is always minted by the server at sign-in (never adopted from the client), and sign-out kills it
 * on the server. (test/auth.e2e-spec.ts covers the basic 401s of POST /auth/magic-link/verify; cross-organization
 * use of a session is test/security/cross-org-access.e2e-spec.ts.)
 */
describe('security: magic links and sessions', () => {
  let db: Database;

  const app = useTestApp();
  beforeAll(async () => {
    db = app.app.get(Database);
  });

  /** Asks for a link and takes its token out of the delivered mail. */
  async function linkFor(email: string): Promise<string> {
    const requested = await call(app.url, 'POST', '/auth/magic-link', { body: { email } });
    expect(requested.status).toBe(202);
    expect(JSON.stringify(requested.body)).not.toMatch(/[0-9A-Za-z]{43}/);
    const mail = await app.smtp.waitForMail(email);
    app.smtp.messages.splice(app.smtp.messages.indexOf(mail), 1);
    return signInTokenFrom(mail);
  }

  const verify = (token: string, headers: Record<string, string> = {}) =>
    call(app.url, 'POST', '/auth/magic-link/verify', { body: { token }, headers });

  /** The dashboard's redemption route: the session comes back only as a cookie. */
  async function redeemInDashboard(token: string, headers: Record<string, string> = {}) {
    const response = await call(app.url, 'POST', '/dashboard/session', { body: { token }, headers });
    const setCookie = response.headers.get('set-cookie');
    const session = setCookie ? /^session=([^;]*)/.exec(setCookie)?.[1] : undefined;
    return { ...response, setCookie, session: session ? decodeURIComponent(session) : undefined };
  }

  const whoAmI = async (token: string) => {
    const response = await call(app.url, 'GET', '/auth/session', { token });
    return response.status === 200 ? (response.body.user.email as string) : response.status;
  };

  const sessionHashes = async () =>
    new Set(
      (await db.query<{ token_hash: string }>('SELECT token_hash FROM auth_sessions')).rows.map((r) => r.token_hash),
    );

  test('a redeemed link cannot be redeemed again on either route, and a replay opens no session', async () => {
    const viaApi = await linkFor('replay@a.test');
    const first = await verify(viaApi);
    expect(first.status).toBe(200);
    const sessionsAfterFirst = await sessionHashes();

    const replay = await verify(viaApi);
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({ reason: 'used' });
    expect(replay.body.session_token).toBeUndefined();
    const replayInDashboard = await redeemInDashboard(viaApi);
    expect(replayInDashboard.status).toBe(401);
    expect(replayInDashboard.setCookie).toBeNull();

    const viaDashboard = await linkFor('replay@a.test');
    const redeemed = await redeemInDashboard(viaDashboard);
    expect(redeemed.status).toBe(200);
    expect(redeemed.session).toMatch(/^sess_[0-9A-Za-z]{43}$/);
    const again = await redeemInDashboard(viaDashboard);
    expect(again.status).toBe(401);
    expect(again.setCookie).toBeNull();
    expect((await verify(viaDashboard)).status).toBe(401);

    // Exactly the two legitimate redemptions made sessions.
    const sessions = await sessionHashes();
    expect(sessions.size).toBe(sessionsAfterFirst.size + 1);

    // The lookup is exact: the same token with one letter's case changed is not a link.
    const exact = await linkFor('replay@a.test');
    const i = exact.search(/[A-Za-z]/);
    const c = exact[i]!;
    const variant =
      exact.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + exact.slice(i + 1);
    expect((await verify(variant)).body).toMatchObject({ reason: 'invalid' });
    expect((await verify(exact)).status).toBe(200);
  });

  test('an expired link is refused on both routes, stays refused, and never becomes a session', async () => {
    const late = await linkFor('late@a.test');
    await db.query(`UPDATE auth_magic_links SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [
      sha256Hex(late),
    ]);
    const before = await sessionHashes();
    const refused = await verify(late);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ reason: 'expired' });
    const refusedInDashboard = await redeemInDashboard(late);
    expect(refusedInDashboard.status).toBe(401);
    expect(refusedInDashboard.body).toMatchObject({ reason: 'expired' });
    expect(refusedInDashboard.setCookie).toBeNull();

    // A newer link works; the old one is still refused afterwards (it was not revived by the new one).
    expect((await verify(await linkFor('late@a.test'))).status).toBe(200);
    expect((await verify(late)).status).toBe(401);
    expect((await sessionHashes()).size).toBe(before.size + 1);
  });

  test('session fixation: a token the client brings is never adopted; every sign-in mints a new one', async () => {
    const chosen = `sess_${randomBase62(43)}`;
    const fixation = { cookie: `session=${chosen}`, authorization: `Bearer ${chosen}`, 'x-session-token': chosen };

    const before = await sessionHashes();
    const viaApi = await verify(await linkFor('fixed@a.test'), fixation);
    expect(viaApi.status).toBe(200);
    const viaDashboard = await redeemInDashboard(await linkFor('fixed@a.test'), fixation);
    expect(viaDashboard.status).toBe(200);
    const issued = [viaApi.body.session_token as string, viaDashboard.session!];
    for (const token of issued) {
      expect(token).toMatch(/^sess_[0-9A-Za-z]{43}$/);
      expect(token).not.toBe(chosen);
      // New: its hash was not in the table before this sign-in.
      expect(before.has(sha256Hex(token))).toBe(false);
      expect(await whoAmI(token)).toBe('fixed@a.test');
    }
    expect(await whoAmI(chosen)).toBe(401);
    expect((await sessionHashes()).has(sha256Hex(chosen))).toBe(false);

    // An attacker's own valid session, planted as the victim's cookie, is replaced, not upgraded to the victim.
    const planted = await signIn(app, app.smtp, 'mallory@a.test');
    const victim = await redeemInDashboard(await linkFor('victim@a.test'), { cookie: `session=${planted}` });
    expect(victim.status).toBe(200);
    expect(victim.session).not.toBe(planted);
    expect(await whoAmI(planted)).toBe('mallory@a.test');
    expect(await whoAmI(victim.session!)).toBe('victim@a.test');

    // Signing in again always issues a different token (and a different session).
    const again = [await signIn(app, app.smtp, 'fixed@a.test'), await signIn(app, app.smtp, 'fixed@a.test')];
    const all = [...issued, ...again];
    expect(new Set(all).size).toBe(all.length);
    const rows = await db.query<{ session_id: string }>(
      'SELECT session_id FROM auth_sessions WHERE token_hash = ANY($1::text[])',
      [all.map(sha256Hex)],
    );
    expect(new Set(rows.rows.map((r) => r.session_id)).size).toBe(all.length);
  });

  test('signing out revokes the token on the server, on both sign-out routes and for cookie and header alike', async () => {
    const { session: first, orgId } = await setUpOrganization(app, app.smtp, 'leaver@a.test');
    const second = await signIn(app, app.smtp, 'leaver@a.test');

    // POST /auth/sign-out authenticated by the cookie (test/auth.e2e-spec.ts covers the Bearer header).
    const out = await call(app.url, 'POST', '/auth/sign-out', { headers: { cookie: `session=${first}` } });
    expect(out.status).toBe(204);
    for (const path of ['/auth/session', '/orgs', `/orgs/${orgId}`, `/orgs/${orgId}/api-keys`]) {
      expect((await call(app.url, 'GET', path, { token: first })).status).toBe(401);
      expect((await call(app.url, 'GET', path, { headers: { cookie: `session=${first}` } })).status).toBe(401);
    }
    expect((await call(app.url, 'POST', '/auth/sign-out', { token: first })).status).toBe(401);
    // Sign-out ends that session only: the user's other session is untouched.
    expect(await whoAmI(second)).toBe('leaver@a.test');

    // The dashboard's sign-out revokes the session server-side (not only the cookie) and clears the cookie.
    const inDashboard = await redeemInDashboard(await linkFor('leaver@a.test'));
    const session = inDashboard.session!;
    expect(await whoAmI(session)).toBe('leaver@a.test');
    const dashboardOut = await call(app.url, 'POST', '/dashboard/sign-out', {
      headers: { cookie: `session=${session}` },
    });
    expect(dashboardOut.status).toBe(204);
    expect(dashboardOut.headers.get('set-cookie')).toMatch(/^session=;.*Max-Age=0/);
    expect(await whoAmI(session)).toBe(401);
    expect((await call(app.url, 'GET', `/orgs/${orgId}`, { token: session })).status).toBe(401);
    expect(await whoAmI(second)).toBe('leaver@a.test');
  });

  test('an expired session is refused everywhere', async () => {
    const { session, orgId } = await setUpOrganization(app, app.smtp, 'stale@a.test');
    expect(await whoAmI(session)).toBe('stale@a.test');
    await db.query(`UPDATE auth_sessions SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [
      sha256Hex(session),
    ]);
    for (const path of ['/auth/session', '/orgs', `/orgs/${orgId}`, `/orgs/${orgId}/ledger`]) {
      expect((await call(app.url, 'GET', path, { token: session })).status).toBe(401);
    }
    const create = await call(app.url, 'POST', `/orgs/${orgId}/api-keys`, { token: session, body: { name: 'late' } });
    expect(create.status).toBe(401);
  });
});
