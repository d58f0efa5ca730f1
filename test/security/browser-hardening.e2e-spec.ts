import { EVENT_STORE, type EventStore, START } from '../../src/event-store/event-store.port.js';
import { signInTokenFrom } from '../support/smtp-sink.js';
import { type Json, call, setUpOrganization, useTestApp } from '../support/test-app.js';
import { documentedOperations, routeIds, routeRecorder, sha256Hex } from './security-support.js';

/**
 * Issue 8, security item 5: what a demanding reviewer checks cheaply around the browser and the keys.
 * - CSRF: the session cookie is HttpOnly + SameSite=Strict (+ Secure over https); every state-changing route that
 *   accepts the cookie refuses a browser's cross-site (or same-site, cross-origin) request, whatever the body type an
 *   HTML form can send; signing in and out of the dashboard refuses them too (login CSRF); no CORS is granted.
 * - Security headers on every dashboard response (CSP without inline code, no framing, no referrer, no sniffing).
 * - Keys are shown once: after the create response, no response of any route, no event and no table holds the
 *   plaintext key or its SHA-256.
 */

const EVIL = 'https://evil.example';
/** What browsers add to a form post or a script's request from another site, and from a sibling subdomain. */
const CROSS_SITE = { origin: EVIL, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' };
const SAME_SITE = { origin: 'https://other.localhost', 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' };
/** A browser that sends Origin but no Fetch Metadata. */
const OLD_BROWSER = { origin: EVIL };

describe('security: browser hardening and keys shown once', () => {
  const recorder = routeRecorder();
  let owner: Awaited<ReturnType<typeof setUpOrganization>>;
  let documented: { id: string; schemes: string[] }[];

  // The test stands where a TLS-terminating proxy would (TRUST_PROXY): its X-Forwarded-Proto is believed.
  const app = useTestApp({ env: { TRUST_PROXY: '127.0.0.1' }, modules: [recorder.module] });
  beforeAll(async () => {
    owner = await setUpOrganization(app, app.smtp, 'owner@a.test');
    documented = documentedOperations((await call(app.url, 'GET', '/openapi.json')).body);
  });

  async function linkFor(email: string): Promise<string> {
    expect((await call(app.url, 'POST', '/auth/magic-link', { body: { email } })).status).toBe(202);
    const mail = await app.smtp.waitForMail(email);
    app.smtp.messages.splice(app.smtp.messages.indexOf(mail), 1);
    return signInTokenFrom(mail);
  }

  /** A cookie session, as the dashboard gets it. */
  async function cookieSession(email: string): Promise<string> {
    const response = await call(app.url, 'POST', '/dashboard/session', { body: { token: await linkFor(email) } });
    expect(response.status).toBe(200);
    return /^session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')![1]!;
  }

  const whoAmI = async (token: string) => (await call(app.url, 'GET', '/auth/session', { token })).body?.user?.email;

  describe('CSRF', () => {
    test('the session cookie is HttpOnly, SameSite=Strict, host-wide, Secure over https, and never in a body', async () => {
      const response = await call(app.url, 'POST', '/dashboard/session', {
        body: { token: await linkFor('c@a.test') },
      });
      expect(response.status).toBe(200);
      const cookie = response.headers.get('set-cookie')!;
      const attributes = cookie.split(';').map((part) => part.trim().toLowerCase());
      expect(attributes[0]).toMatch(/^session=sess_[0-9a-z]{43}$/);
      expect(attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=strict', 'path=/']));
      expect(attributes.some((a) => a.startsWith('domain='))).toBe(false);
      expect(attributes).not.toContain('secure'); // plain http here; see below for https
      expect(JSON.stringify(response.body)).not.toContain('sess_');
      expect(response.headers.get('cache-control')).toBe('no-store');

      // Behind a trusted TLS-terminating proxy (X-Forwarded-Proto: https), the cookie is Secure.
      const overTls = await call(app.url, 'POST', '/dashboard/session', {
        body: { token: await linkFor('c@a.test') },
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(overTls.status).toBe(200);
      expect(overTls.headers.get('set-cookie')).toMatch(/;\s*Secure(;|$)/i);
    });

    test('every state-changing route that takes the cookie refuses cross-site browsers, with any form body, and changes nothing', async () => {
      // The routes: every documented operation that accepts the session cookie and is not a read, plus the
      // dashboard's own sign-in and sign-out. Cross-checked with the registered routes.
      const cookieWrites = documented
        .filter((o) => o.schemes.includes('sessionCookie') && !o.id.startsWith('GET '))
        .map((o) => o.id);
      const registeredWrites = routeIds(recorder.routes).filter(
        (id) =>
          /^\w+ \/(orgs|auth)(\/|$)/.test(id) && !id.startsWith('GET ') && !id.startsWith('POST /auth/magic-link'),
      );
      expect(cookieWrites.sort()).toEqual(registeredWrites);
      expect(cookieWrites.length).toBeGreaterThanOrEqual(7);

      const cookie = await cookieSession('owner@a.test');
      const key = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, {
        token: owner.session,
        body: { name: 'target' },
      });
      const concrete = (id: string) =>
        id
          .slice(id.indexOf(' ') + 1)
          .replace('{org_id}', owner.orgId)
          .replace('{key_id}', key.body.id)
          .replace('{project_id}', owner.projectId);
      const store = app.app.get<EventStore>(EVENT_STORE);
      const eventsBefore = (await store.readAll({ from: START, maxCount: 100_000 })).length;

      /** Bodies an HTML form (or a no-cors fetch) can send without a CORS preflight. */
      const formBodies: { type: string; body: string }[] = [
        { type: 'application/x-www-form-urlencoded', body: 'name=pwned&email=mallory%40evil.example&role=admin' },
        { type: 'text/plain', body: '{"name":"pwned","email":"mallory@evil.example","role":"admin"}' },
        {
          type: 'multipart/form-data; boundary=x',
          body: '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\npwned\r\n--x--\r\n',
        },
      ];
      const failures: unknown[] = [];
      for (const id of cookieWrites) {
        const method = id.slice(0, id.indexOf(' '));
        for (const [who, headers] of Object.entries({ CROSS_SITE, SAME_SITE, OLD_BROWSER })) {
          for (const form of formBodies) {
            const response = await call(app.url, method, concrete(id), {
              body: form.body,
              headers: { ...headers, cookie: `session=${cookie}`, 'content-type': form.type },
            });
            // Multipart never reaches the route (415: no parser); everything else is refused by the session guard.
            const refusal = form.type.startsWith('multipart/') ? 415 : 403;
            if (response.status !== refusal) failures.push({ id, who, type: form.type, status: response.status });
          }
          const json = await call(app.url, method, concrete(id), {
            body: { name: 'pwned', email: 'mallory@evil.example', role: 'admin' },
            headers: { ...headers, cookie: `session=${cookie}` },
          });
          if (json.status !== 403) failures.push({ id, who, type: 'json', status: json.status });
        }
      }
      expect(failures).toEqual([]);

      // Nothing happened: no event, the cookie session is still alive, Mallory is no member, the key is intact.
      expect((await store.readAll({ from: START, maxCount: 100_000 })).length).toBe(eventsBefore);
      expect(await whoAmI(cookie)).toBe('owner@a.test');
      const members = await call(app.url, 'GET', `/orgs/${owner.orgId}/members`, { token: owner.session });
      expect(JSON.stringify(members.body)).not.toContain('mallory');
      const keys = await call(app.url, 'GET', `/orgs/${owner.orgId}/api-keys`, { token: owner.session });
      expect(keys.body.keys.find((k: { id: string }) => k.id === key.body.id)).toMatchObject({
        name: 'target',
        status: 'active',
      });

      // The same requests from the dashboard's own origin (what the dashboard sends) and from non-browser clients
      // (no Origin, no Fetch Metadata), or with the Bearer header (which no other site can make a browser send),
      // are served.
      const sameOrigin = { origin: app.url, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' };
      const renames: [string, Record<string, string>, string | undefined][] = [
        ['dashboard', { ...sameOrigin, cookie: `session=${cookie}` }, undefined],
        ['old browser, same origin', { origin: app.url, cookie: `session=${cookie}` }, undefined],
        ['curl with the cookie', { cookie: `session=${cookie}` }, undefined],
        ['Bearer from anywhere', CROSS_SITE, owner.session],
      ];
      for (const [who, headers, token] of renames) {
        const renamed = await call(app.url, 'PATCH', `/orgs/${owner.orgId}/api-keys/${key.body.id}`, {
          body: { name: `renamed by ${who}` },
          headers,
          ...(token ? { token } : {}),
        });
        expect({ who, status: renamed.status }).toEqual({ who, status: 200 });
      }
      // Reads are not state changes: a cross-site GET is answered, but with no CORS grant a page cannot read it.
      const read = await call(app.url, 'GET', `/orgs/${owner.orgId}/api-keys`, {
        headers: { ...CROSS_SITE, cookie: `session=${cookie}` },
      });
      expect(read.status).toBe(200);
      expect(read.headers.get('access-control-allow-origin')).toBeNull();
    });

    test('login CSRF: another site cannot sign a browser in (to its own account) or out through the dashboard', async () => {
      const attackersLink = await linkFor('mallory@evil.example');
      for (const headers of [
        CROSS_SITE,
        SAME_SITE,
        OLD_BROWSER,
        { 'sec-fetch-site': 'cross-site' },
        { origin: 'null' },
      ]) {
        for (const [type, body] of [
          ['application/x-www-form-urlencoded', `token=${attackersLink}`],
          ['application/json', JSON.stringify({ token: attackersLink })],
        ]) {
          const response = await call(app.url, 'POST', '/dashboard/session', {
            body,
            headers: { ...headers, 'content-type': type! },
          });
          expect({ headers, type, status: response.status }).toEqual({ headers, type, status: 403 });
          expect(response.headers.get('set-cookie')).toBeNull();
        }
      }
      // The link was not used up by the refused attempts: its owner can still use it, from the dashboard's origin.
      const own = await call(app.url, 'POST', '/dashboard/session', {
        body: { token: attackersLink },
        headers: { origin: app.url, 'sec-fetch-site': 'same-origin' },
      });
      expect(own.status).toBe(200);

      const cookie = await cookieSession('victim@a.test');
      const forcedOut = await call(app.url, 'POST', '/dashboard/sign-out', {
        headers: { ...CROSS_SITE, cookie: `session=${cookie}` },
      });
      expect(forcedOut.status).toBe(403);
      expect(forcedOut.headers.get('set-cookie')).toBeNull();
      expect(await whoAmI(cookie)).toBe('victim@a.test');
    });

    test('no CORS is granted: preflights and cross-origin requests get no Access-Control-Allow-* headers', async () => {
      const preflight = await call(app.url, 'OPTIONS', `/orgs/${owner.orgId}/api-keys`, {
        headers: {
          origin: EVIL,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, authorization',
        },
      });
      expect(preflight.status).toBeGreaterThanOrEqual(400);
      for (const response of [
        preflight,
        await call(app.url, 'GET', '/orgs', { token: owner.session, headers: { origin: EVIL } }),
        await call(app.url, 'POST', '/search', { headers: { origin: EVIL }, body: { query: 'x' } }),
      ]) {
        const granted = [...response.headers.keys()].filter((name) => name.startsWith('access-control-allow'));
        expect(granted).toEqual([]);
      }
    });
  });

  test('every dashboard response carries the security headers; the shell has no inline code and reflects nothing', async () => {
    const xss = '"><script>alert(1)</script>';
    const pages = [
      '/dashboard',
      `/dashboard/sign-in?token=${encodeURIComponent(xss)}`,
      `/dashboard/orgs/${owner.orgId}/keys`,
      `/dashboard/${encodeURIComponent(xss)}`,
    ];
    for (const path of pages) {
      const response = await fetch(app.url + path);
      // 200 when the dashboard is built (npm run build), 503 with an explanation otherwise: the headers either way.
      expect([200, 503]).toContain(response.status);
      expectSecurityHeaders(response.headers, path);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await response.text();
      expect(html).not.toContain('<script>alert');
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
      expect(html).not.toMatch(/\son[a-z]+=/i); // no inline event handler
      expect(html).not.toMatch(/\sstyle=/);
    }
    for (const asset of ['/dashboard/assets/app.js', '/dashboard/assets/..%2F..%2Fpackage.json']) {
      const response = await fetch(app.url + asset);
      expectSecurityHeaders(response.headers, asset);
    }
    expect((await fetch(`${app.url}/dashboard/assets/..%2F..%2Fpackage.json`)).status).toBe(404);
  });

  test('a key is shown once: no later response holds the plaintext or its SHA-256, no event the plaintext', async () => {
    const created = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, {
      token: owner.session,
      body: { name: 'shown once', project_id: owner.projectId },
    });
    expect(created.status).toBe(201);
    const plaintext = created.body.key as string;
    const secretPart = plaintext.slice(plaintext.lastIndexOf('_') + 1);
    const hash = sha256Hex(plaintext);
    expect(created.body.prefix.length).toBeLessThan(plaintext.length - 20); // the prefix reveals little of the secret
    const forbidden = (response: Json | string) => {
      const text = typeof response === 'string' ? response : JSON.stringify(response.body ?? '');
      return [plaintext, secretPart, hash].filter((s) => text.includes(s));
    };

    // Use it, so that usage, ledger and last-used show it.
    expect((await call(app.url, 'POST', '/search', { token: plaintext, body: { query: 'x' } })).status).toBe(200);
    const org = owner.orgId;
    const keyPath = `/orgs/${org}/api-keys/${created.body.id}`;
    const deadline = Date.now() + 15_000;
    while ((await call(app.url, 'GET', `/orgs/${org}/ledger`, { token: owner.session })).body.entries.length === 0) {
      if (Date.now() > deadline) throw new Error('the charge never reached the ledger');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const responses: [string, Json][] = [
      ['list', await call(app.url, 'GET', `/orgs/${org}/api-keys`, { token: owner.session })],
      ['rename', await call(app.url, 'PATCH', keyPath, { token: owner.session, body: { name: 'renamed' } })],
      ['org', await call(app.url, 'GET', `/orgs/${org}`, { token: owner.session })],
      ['usage', await call(app.url, 'GET', `/orgs/${org}/usage`, { token: owner.session })],
      ['ledger', await call(app.url, 'GET', `/orgs/${org}/ledger`, { token: owner.session })],
      [
        'ledger csv',
        await call(app.url, 'GET', `/orgs/${org}/ledger`, { token: owner.session, headers: { accept: 'text/csv' } }),
      ],
      ['key usage', await call(app.url, 'GET', '/usage', { token: plaintext })],
      ['revoke', await call(app.url, 'DELETE', keyPath, { token: owner.session })],
      ['list after revoke', await call(app.url, 'GET', `/orgs/${org}/api-keys`, { token: owner.session })],
    ];
    expect(responses.map(([name, r]) => [name, r.status])).toEqual(responses.map(([name]) => [name, 200]));
    expect(responses.flatMap(([name, r]) => forbidden(r).map((s) => `${name}: ${s.slice(0, 12)}…`))).toEqual([]);
    expect(JSON.stringify(responses[0]![1].body)).toContain(created.body.prefix);

    // The events hold the hash (that is how a key is checked), never the plaintext.
    const recorded = await app.app.get<EventStore>(EVENT_STORE).readAll({ from: START, maxCount: 100_000 });
    const events = JSON.stringify(recorded.map((e) => ({ type: e.type, data: e.data, metadata: e.metadata })));
    expect(events).toContain(hash);
    expect(events).not.toContain(plaintext);
    expect(events).not.toContain(secretPart);
  });
});

function expectSecurityHeaders(headers: Headers, path: string): void {
  const csp = headers.get('content-security-policy') ?? '';
  const directives = new Map(
    csp.split(';').map((d) => {
      const [name = '', ...values] = d.trim().split(/\s+/);
      return [name, values] as const;
    }),
  );
  const report = { path, csp };
  expect({ ...report, defaultSrc: directives.get('default-src') }).toEqual({ ...report, defaultSrc: ["'none'"] });
  expect({ ...report, scriptSrc: directives.get('script-src') }).toEqual({ ...report, scriptSrc: ["'self'"] });
  expect({ ...report, frameAncestors: directives.get('frame-ancestors') }).toEqual({
    ...report,
    frameAncestors: ["'none'"],
  });
  expect({ ...report, baseUri: directives.get('base-uri') }).toEqual({ ...report, baseUri: ["'none'"] });
  expect({ ...report, formAction: directives.get('form-action') }).toEqual({ ...report, formAction: ["'self'"] });
  expect({ ...report, loose: /unsafe-inline|unsafe-eval|\*/.test(csp) }).toEqual({ ...report, loose: false });
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
}
