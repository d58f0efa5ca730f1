import { randomUUID } from 'node:crypto';
import { ProjectionRunner } from '../../projections/projection-runner.js';
import { START, EVENT_STORE, type EventStore } from '../../src/event-store/event-store.port.js';
import { StatementCloser } from '../../src/metering/statements/statement-closer.js';
import { eventually } from '../support/eventually.js';
import { type Json, call, setUpOrganization, useTestApp } from '../support/test-app.js';
import { documentedOperations, routeIds, routeRecorder } from './security-support.js';

/**
 * Issue 8, security item 1: no signed-in user reaches another organization's resources through any control-plane
 * route, and the credentials of one plane never open the other. The routes are enumerated from the running
 * application (and cross-checked with /openapi.json), so a new `/orgs/{org_id}/...` route fails this file until it
 * is added to CASES below.
 */

interface Tenant {
  email: string;
  session: string;
  orgId: string;
  projectId: string;
  keyId: string;
  key: string;
  prefix: string;
  /** The request id of the tenant's one search. */
  requestId: string;
  /** The owner's user id. */
  userId: string;
  /** A webhook endpoint of the organization's. */
  webhookId?: string;
}

interface Probe {
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** What the probe must answer. Reads of the caller's own organization answer 200, showing nothing of the other. */
  readonly status?: 404 | 200;
}

interface Case {
  /** Alice aims at Bob's organization: Bob's org id in the path (and Bob's other ids where the route takes them). */
  readonly inOtherOrg: (bob: Tenant, alice: Tenant) => Probe[];
  /** Alice passes Bob's ids (path, body or query) under her own organization's path; [] when the route takes none. */
  readonly otherIdsUnderOwnOrg: (bob: Tenant, alice: Tenant) => Probe[];
}

const orgPath = (t: Tenant, rest = '') => `/orgs/${t.orgId}${rest}`;

/** One entry per control-plane route with {org_id} in its path, keyed as `METHOD /openapi/path`. */
const CASES: Record<string, Case> = {
  'GET /orgs/{org_id}': {
    inOtherOrg: (b) => [{ path: orgPath(b) }],
    otherIdsUnderOwnOrg: () => [],
  },
  'PUT /orgs/{org_id}/plan': {
    inOtherOrg: (b) => [
      { path: orgPath(b, '/plan'), body: { plan: 'enterprise' } },
      { path: orgPath(b, '/plan'), body: { plan: 'free', monthly_credit_allowance: 1 } },
    ],
    otherIdsUnderOwnOrg: () => [],
  },
  'GET /orgs/{org_id}/credit-grants': {
    inOtherOrg: (b) => [{ path: orgPath(b, '/credit-grants') }],
    otherIdsUnderOwnOrg: (_b, a) => [{ path: orgPath(a, '/credit-grants'), status: 200 }],
  },
  'POST /orgs/{org_id}/credit-grants': {
    inOtherOrg: (b) => [{ path: orgPath(b, '/credit-grants'), body: { credits: 1000 } }],
    otherIdsUnderOwnOrg: () => [],
  },
  'DELETE /orgs/{org_id}/credit-grants/{grant_id}': {
    inOtherOrg: (b) => [{ path: orgPath(b, `/credit-grants/${randomUUID()}`) }],
    otherIdsUnderOwnOrg: () => [],
  },
  'GET /orgs/{org_id}/members': {
    inOtherOrg: (b) => [{ path: orgPath(b, '/members') }],
    otherIdsUnderOwnOrg: (_b, a) => [{ path: orgPath(a, '/members'), status: 200 }],
  },
  'POST /orgs/{org_id}/members': {
    inOtherOrg: (b, a) => [
      { path: orgPath(b, '/members'), body: { email: a.email, role: 'admin' } },
      { path: orgPath(b, '/members'), body: { email: 'mallory@a.test', role: 'member' } },
    ],
    otherIdsUnderOwnOrg: () => [],
  },
  'DELETE /orgs/{org_id}/members/{user_id}': {
    inOtherOrg: (b) => [{ path: orgPath(b, `/members/${b.userId}`) }],
    otherIdsUnderOwnOrg: (b, a) => [{ path: orgPath(a, `/members/${b.userId}`) }],
  },
  'GET /orgs/{org_id}/projects': {
    inOtherOrg: (b) => [{ path: orgPath(b, '/projects') }],
    otherIdsUnderOwnOrg: (_b, a) => [{ path: orgPath(a, '/projects'), status: 200 }],
  },
  'POST /orgs/{org_id}/projects': {
    inOtherOrg: (b) => [{ path: orgPath(b, '/projects'), body: { name: 'planted by alice' } }],
    otherIdsUnderOwnOrg: () => [],
  },
  'PATCH /orgs/{org_id}/projects/{project_id}': {
    inOtherOrg: (b, a) => [
      { path: orgPath(b, `/projects/${b.projectId}`), body: { name: 'renamed by alice' } },
      { path: orgPath(b, `/projects/${a.projectId}`), body: { name: 'renamed by alice' } },
    ],
    otherIdsUnderOwnOrg: (b, a) => [
      { path: orgPath(a, `/projects/${b.projectId}`), body: { name: 'renamed by alice' } },
    ],
  },
  'GET /orgs/{org_id}/api-keys': {
    inOtherOrg: (b) => [{ path: orgPath(b, '/api-keys') }],
    otherIdsUnderOwnOrg: (_b, a) => [{ path: orgPath(a, '/api-keys'), status: 200 }],
  },
  'POST /orgs/{org_id}/api-keys': {
    inOtherOrg: (b, a) => [
      { path: orgPath(b, '/api-keys'), body: { name: 'planted by alice' } },
      { path: orgPath(b, '/api-keys'), body: { name: 'planted by alice', project_id: b.projectId } },
      { path: orgPath(b, '/api-keys'), body: { name: 'planted by alice', project_id: a.projectId } },
    ],
    otherIdsUnderOwnOrg: (b, a) => [
      { path: orgPath(a, '/api-keys'), body: { name: 'into bob project', project_id: b.projectId } },
    ],
  },
  'PATCH /orgs/{org_id}/api-keys/{key_id}': {
    inOtherOrg: (b, a) => [
      { path: orgPath(b, `/api-keys/${b.keyId}`), body: { name: 'pwned' } },
      { path: orgPath(b, `/api-keys/${a.keyId}`), body: { name: 'pwned' } },
    ],
    otherIdsUnderOwnOrg: (b, a) => [{ path: orgPath(a, `/api-keys/${b.keyId}`), body: { name: 'pwned' } }],
  },
  'DELETE /orgs/{org_id}/api-keys/{key_id}': {
    inOtherOrg: (b, a) => [{ path: orgPath(b, `/api-keys/${b.keyId}`) }, { path: orgPath(b, `/api-keys/${a.keyId}`) }],
    otherIdsUnderOwnOrg: (b, a) => [{ path: orgPath(a, `/api-keys/${b.keyId}`) }],
  },
  'GET /orgs/{org_id}/usage': {
    inOtherOrg: (b) => [{ path: orgPath(b, '/usage') }, { path: orgPath(b, `/usage?month=${thisMonth()}`) }],
    otherIdsUnderOwnOrg: (_b, a) => [{ path: orgPath(a, '/usage'), status: 200 }],
  },
  'GET /orgs/{org_id}/ledger': {
    inOtherOrg: (b) => [
      { path: orgPath(b, '/ledger') },
      { path: orgPath(b, `/ledger?project_id=${b.projectId}&key_id=${b.keyId}`) },
      { path: orgPath(b, '/ledger'), headers: { accept: 'text/csv' } },
    ],
    otherIdsUnderOwnOrg: (b, a) => [
      { path: orgPath(a, `/ledger?project_id=${b.projectId}`), status: 200 },
      { path: orgPath(a, `/ledger?key_id=${b.keyId}`), status: 200 },
      { path: orgPath(a, `/ledger?key_id=${b.keyId}`), headers: { accept: 'text/csv' }, status: 200 },
    ],
  },
  'GET /orgs/{org_id}/requests': {
    inOtherOrg: (b) => [
      { path: orgPath(b, '/requests') },
      { path: orgPath(b, `/requests?project_id=${b.projectId}&key_id=${b.keyId}`) },
    ],
    otherIdsUnderOwnOrg: (b, a) => [
      { path: orgPath(a, `/requests?project_id=${b.projectId}`), status: 200 },
      { path: orgPath(a, `/requests?key_id=${b.keyId}`), status: 200 },
    ],
  },
  'GET /orgs/{org_id}/requests/{request_id}': {
    inOtherOrg: (b) => [{ path: orgPath(b, `/requests/${b.requestId}`) }],
    otherIdsUnderOwnOrg: (b, a) => [{ path: orgPath(a, `/requests/${b.requestId}`) }],
  },
  'GET /orgs/{org_id}/audit-log': {
    inOtherOrg: (b) => [
      { path: orgPath(b, '/audit-log') },
      { path: orgPath(b, `/audit-log?target_id=${b.keyId}`), headers: { accept: 'text/csv' } },
    ],
    otherIdsUnderOwnOrg: (b, a) => [{ path: orgPath(a, `/audit-log?target_id=${b.keyId}`), status: 200 }],
  },
  'GET /orgs/{org_id}/statements': {
    inOtherOrg: (b) => [
      { path: orgPath(b, '/statements') },
      { path: orgPath(b, '/statements'), headers: { accept: 'text/csv' } },
    ],
    otherIdsUnderOwnOrg: (_b, a) => [{ path: orgPath(a, '/statements'), status: 200 }],
  },
  'GET /orgs/{org_id}/statements/{month}': {
    inOtherOrg: (b) => [
      { path: orgPath(b, `/statements/${closedMonth()}`) },
      { path: orgPath(b, `/statements/${closedMonth()}`), headers: { accept: 'text/csv' } },
    ],
    otherIdsUnderOwnOrg: () => [],
  },
  'GET /orgs/{org_id}/alert-thresholds': {
    inOtherOrg: (b) => [{ path: orgPath(b, '/alert-thresholds') }],
    otherIdsUnderOwnOrg: (_b, a) => [{ path: orgPath(a, '/alert-thresholds'), status: 200 }],
  },
  'PUT /orgs/{org_id}/alert-thresholds': {
    inOtherOrg: (b, a) => [
      { path: orgPath(b, '/alert-thresholds'), body: { scope: 'organization', thresholds: [1] } },
      { path: orgPath(b, '/alert-thresholds'), body: { scope: 'key', id: b.keyId, thresholds: [1] } },
      { path: orgPath(b, '/alert-thresholds'), body: { scope: 'key', id: a.keyId, thresholds: [1] } },
    ],
    otherIdsUnderOwnOrg: (b, a) => [
      { path: orgPath(a, '/alert-thresholds'), body: { scope: 'key', id: b.keyId, thresholds: [1] } },
      { path: orgPath(a, '/alert-thresholds'), body: { scope: 'project', id: b.projectId, thresholds: [1] } },
    ],
  },
  'GET /orgs/{org_id}/alerts': {
    inOtherOrg: (b) => [{ path: orgPath(b, '/alerts') }],
    otherIdsUnderOwnOrg: (_b, a) => [{ path: orgPath(a, '/alerts'), status: 200 }],
  },
  'GET /orgs/{org_id}/webhooks': {
    inOtherOrg: (b) => [{ path: orgPath(b, '/webhooks') }],
    otherIdsUnderOwnOrg: (_b, a) => [{ path: orgPath(a, '/webhooks'), status: 200 }],
  },
  'POST /orgs/{org_id}/webhooks': {
    inOtherOrg: (b) => [{ path: orgPath(b, '/webhooks'), body: { url: 'http://93.184.215.14/planted-by-alice' } }],
    otherIdsUnderOwnOrg: () => [],
  },
  'DELETE /orgs/{org_id}/webhooks/{webhook_id}': {
    inOtherOrg: (b) => [{ path: orgPath(b, `/webhooks/${b.webhookId}`) }],
    otherIdsUnderOwnOrg: (b, a) => [{ path: orgPath(a, `/webhooks/${b.webhookId}`) }],
  },
  'GET /orgs/{org_id}/webhooks/{webhook_id}/deliveries': {
    inOtherOrg: (b) => [{ path: orgPath(b, `/webhooks/${b.webhookId}/deliveries`) }],
    otherIdsUnderOwnOrg: (b, a) => [{ path: orgPath(a, `/webhooks/${b.webhookId}/deliveries`) }],
  },
  'POST /orgs/{org_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/replay': {
    inOtherOrg: (b) => [{ path: orgPath(b, `/webhooks/${b.webhookId}/deliveries/${randomUUID()}/replay`) }],
    otherIdsUnderOwnOrg: (b, a) => [{ path: orgPath(a, `/webhooks/${b.webhookId}/deliveries/${randomUUID()}/replay`) }],
  },
  'GET /orgs/{org_id}/feedback': {
    inOtherOrg: (b) => [{ path: orgPath(b, '/feedback') }],
    otherIdsUnderOwnOrg: (_b, a) => [{ path: orgPath(a, '/feedback'), status: 200 }],
  },
};

const thisMonth = () => new Date().toISOString().slice(0, 7);
/** Two months back: a month that has closed whatever the day (STATEMENT_GRACE_DAYS is 3 by default). */
const closedMonth = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 1)).toISOString().slice(0, 7);
};
const methodOf = (id: string) => id.slice(0, id.indexOf(' '));
const isReadOnly = (id: string) => methodOf(id) === 'GET';

describe('security: cross-organization access and credential confusion', () => {
  const recorder = routeRecorder();
  let alice: Tenant;
  let bob: Tenant;
  let documented: { id: string; schemes: string[] }[];
  /** Strings that belong to Bob's organization only: none of them may reach Alice. */
  let bobMarkers: string[];

  async function tenant(email: string, keyName: string): Promise<Tenant> {
    const org = await setUpOrganization(app, app.smtp, email);
    const created = await call(app.url, 'POST', `/orgs/${org.orgId}/api-keys`, {
      token: org.session,
      body: { name: keyName, project_id: org.projectId },
    });
    expect(created.status).toBe(201);
    const { id: keyId, key, prefix } = created.body;
    // Its request id is the one of its first search, below.
    const me = await call(app.url, 'GET', '/auth/session', { token: org.session });
    return { ...org, email, keyId, key, prefix, requestId: '', userId: me.body.user.id as string };
  }

  const ledgerOf = (t: Tenant) => call(app.url, 'GET', orgPath(t, '/ledger'), { token: t.session });

  const app = useTestApp({ modules: [recorder.module] }, 60_000);
  beforeAll(async () => {
    alice = await tenant('alice@a.test', 'alice-key-3f9');
    bob = await tenant('bob@b.test', 'bob-key-7c1');
    const member = await call(app.url, 'POST', orgPath(bob, '/members'), {
      token: bob.session,
      body: { email: 'carol@b.test', role: 'member' },
    });
    expect(member.status).toBe(201);
    const webhook = await call(app.url, 'POST', orgPath(bob, '/webhooks'), {
      token: bob.session,
      body: { url: 'http://93.184.215.14/bob-hook' },
    });
    expect(webhook.status).toBe(201);
    bob.webhookId = webhook.body.id as string;
    const own = await call(app.url, 'POST', orgPath(alice, '/webhooks'), {
      token: alice.session,
      body: { url: 'http://93.184.215.14/alice-hook' },
    });
    alice.webhookId = own.body.id as string;
    // Both organizations have usage, so that the usage and ledger routes have something to leak.
    for (const t of [alice, bob]) {
      const searched = await call(app.url, 'POST', '/search', { token: t.key, body: { query: 'anything' } });
      expect(searched.status).toBe(200);
      t.requestId = searched.headers.get('x-request-id')!;
      await eventually(
        `the ledger of ${t.email}`,
        () => ledgerOf(t),
        (r) => r.body.entries?.length === 1,
      );
      // The request log is written in batches after the responses: Bob's view of it is complete before the probes.
      await eventually(
        `the request log of ${t.email}`,
        () => call(app.url, 'GET', orgPath(t, '/requests'), { token: t.session }),
        (r) => r.body.requests?.length === 1,
      );
    }
    // Both organizations have a statement, so that the statement routes have something to leak.
    for (const t of [alice, bob]) {
      await app.app.get(StatementCloser).close(t.orgId, closedMonth(), { type: 'system', id: 'test' });
    }
    await app.app.get(ProjectionRunner).waitForHead(10_000);
    documented = documentedOperations((await call(app.url, 'GET', '/openapi.json')).body);
    bobMarkers = [
      bob.orgId,
      bob.projectId,
      bob.keyId,
      bob.prefix,
      bob.key,
      bob.requestId,
      'bob@b.test',
      'carol@b.test',
      'bob-key-7c1',
      bob.webhookId,
      'bob-hook',
    ];
  }, 60_000);

  const request = (token: string | undefined, method: string, probe: Probe) =>
    call(app.url, method, probe.path, {
      ...(token ? { token } : {}),
      ...(probe.body !== undefined ? { body: probe.body } : {}),
      ...(probe.headers ? { headers: probe.headers } : {}),
    });

  const leaks = (response: Json, markers: string[]) => {
    const text = typeof response.body === 'string' ? response.body : JSON.stringify(response.body ?? '');
    return markers.filter((marker) => text.includes(marker));
  };

  test('every registered route with {org_id} is covered, and the OpenAPI document lists the same ones', () => {
    const registered = routeIds(recorder.routes).filter((id) => id.includes('{org_id}'));
    expect(registered.length).toBeGreaterThanOrEqual(11);
    expect(registered).toEqual(Object.keys(CASES).sort());
    const inDocument = documented
      .map((o) => o.id)
      .filter((id) => id.includes('{org_id}'))
      .sort();
    expect(inDocument).toEqual(registered);
  });

  test("Alice gets 404 on every route of Bob's organization (and on Bob's ids under her own), and nothing of Bob's changes", async () => {
    const store = app.app.get<EventStore>(EVENT_STORE);
    const bobsGetRoutes = Object.keys(CASES).filter(isReadOnly);
    /** Everything Bob can read about his organization, and every event in the store. */
    const snapshot = async () => ({
      views: await Promise.all(
        bobsGetRoutes.flatMap((id) =>
          CASES[id]!.inOtherOrg(bob, alice).map(async (probe) => {
            const response = await request(bob.session, 'GET', probe);
            return { id, path: probe.path, status: response.status, body: response.body };
          }),
        ),
      ),
      events: (await store.readAll({ from: START, maxCount: 100_000 })).map((e) => e.id),
    });
    const before = await snapshot();
    expect(before.views.every((v) => v.status === 200)).toBe(true);
    expect(JSON.stringify(before.views)).toContain('carol@b.test');

    type Answer = { id: string; method: string; path: string; status: number; leaked: string[]; errorBody: boolean };
    const answers: Answer[] = [];
    const oracles: unknown[] = [];
    const ghostOrg = randomUUID();
    for (const [id, cases] of Object.entries(CASES)) {
      const method = methodOf(id);
      for (const probe of cases.inOtherOrg(bob, alice)) {
        const response = await request(alice.session, method, probe);
        const errorBody = typeof response.body?.error === 'string';
        answers.push({
          id,
          method,
          path: probe.path,
          status: response.status,
          leaked: leaks(response, bobMarkers),
          errorBody,
        });
        // Indistinguishable from an organization that does not exist: no existence oracle.
        const ghost = await request(alice.session, method, { ...probe, path: probe.path.replace(bob.orgId, ghostOrg) });
        if (ghost.status !== response.status || JSON.stringify(ghost.body) !== JSON.stringify(response.body))
          oracles.push({
            id,
            path: probe.path,
            bob: [response.status, response.body],
            none: [ghost.status, ghost.body],
          });
        if (method === 'GET') {
          const head = await call(app.url, 'HEAD', probe.path, { token: alice.session });
          answers.push({ id, method: 'HEAD', path: probe.path, status: head.status, leaked: [], errorBody: true });
        }
      }
    }
    expect(answers.length).toBeGreaterThan(Object.keys(CASES).length);
    // 404 with a JSON error for reading and changing alike: exactly as if Bob's organization did not exist.
    expect(answers.filter((a) => a.status !== 404 || a.leaked.length > 0 || !a.errorBody)).toEqual([]);
    expect(oracles).toEqual([]);

    const underOwn: Omit<Answer, 'errorBody'>[] = [];
    for (const [id, cases] of Object.entries(CASES)) {
      const method = methodOf(id);
      for (const probe of cases.otherIdsUnderOwnOrg(bob, alice)) {
        const response = await request(alice.session, method, probe);
        expect({ id, path: probe.path, status: response.status }).toEqual({
          id,
          path: probe.path,
          status: probe.status ?? 404,
        });
        if (response.status === 200 && typeof response.body === 'object' && 'entries' in response.body)
          expect(response.body.entries).toEqual([]);
        underOwn.push({ id, method, path: probe.path, status: response.status, leaked: leaks(response, bobMarkers) });
        if (response.status === 404) {
          // Bob's key or project answers exactly like one that does not exist.
          const swap = (text: string) => text.replace(bob.keyId, randomUUID()).replace(bob.projectId, randomUUID());
          const ghost = await request(alice.session, method, {
            ...probe,
            path: swap(probe.path),
            ...(probe.body !== undefined ? { body: JSON.parse(swap(JSON.stringify(probe.body))) } : {}),
          });
          if (ghost.status !== 404 || JSON.stringify(ghost.body) !== JSON.stringify(response.body))
            oracles.push({ id, path: probe.path, bob: response.body, none: [ghost.status, ghost.body] });
        }
      }
    }
    expect(underOwn.filter((a) => a.leaked.length > 0)).toEqual([]);
    expect(oracles).toEqual([]);
    // Every write route that takes an id of another organization was probed with one.
    for (const id of [
      'POST /orgs/{org_id}/api-keys',
      'PATCH /orgs/{org_id}/api-keys/{key_id}',
      'PATCH /orgs/{org_id}/projects/{project_id}',
    ]) {
      expect(underOwn.some((a) => a.id === id)).toBe(true);
    }

    // Bob's organization reads exactly as before, no event was appended, and his key still works.
    expect(await snapshot()).toEqual(before);
    expect((await call(app.url, 'POST', '/search', { token: bob.key, body: { query: 'still mine' } })).status).toBe(
      200,
    );
    const aliceKeys = await call(app.url, 'GET', orgPath(alice, '/api-keys'), { token: alice.session });
    expect(aliceKeys.body.keys.map((k: { name: string; status: string }) => [k.name, k.status])).toEqual([
      ['alice-key-3f9', 'active'],
    ]);
  });

  test("the account routes (POST /logs, POST /org-usage) show Alice's key nothing of Bob's organization", async () => {
    const own = await call(app.url, 'POST', '/logs', { token: alice.key, body: { limit: 100 } });
    expect(own.status).toBe(200);
    expect(own.body.count).toBe(1);
    const probes: [string, unknown][] = [
      ['/logs', { limit: 10_000 }],
      ['/logs', { project_id: bob.projectId }],
      ['/logs', { filter_by_api_key: true }],
      ['/org-usage', { organization_name: 'alice@a.test org' }],
      ['/org-usage', { organization_name: 'bob@b.test org' }],
      ['/org-usage', { organization_name: 'bob@b.test org', project_id: bob.projectId }],
      ['/org-usage', { organization_name: 'alice@a.test org', project_id: bob.projectId }],
    ];
    const answers: unknown[] = [];
    for (const [path, body] of probes) {
      const response = await call(app.url, 'POST', path, { token: alice.key, body });
      // organization.filters echoes the request's own filters (a project id Alice sent): the figures must not leak.
      const { organization: _echo, ...figures } = (response.body ?? {}) as Record<string, unknown>;
      answers.push({ path, body, status: response.status, leaks: leaks({ ...response, body: figures }, bobMarkers) });
    }
    expect(answers).toEqual(
      probes.map(([path, body]) => ({
        path,
        body,
        status:
          path === '/org-usage' && (body as { organization_name: string }).organization_name.startsWith('bob')
            ? 404
            : 200,
        leaks: [],
      })),
    );
  });

  describe('the credentials of one plane never open the other', () => {
    /** Concrete paths for a route pattern, with Alice's own ids, so that only the credential can be wrong. */
    const concrete = (path: string) =>
      path
        .replace('{org_id}', alice.orgId)
        .replace('{key_id}', alice.keyId)
        .replace('{webhook_id}', alice.webhookId!)
        .replace('{vertical}', 'news')
        .replace('/requests/{request_id}', `/requests/${alice.requestId}`)
        .replace('{month}', closedMonth())
        .replace('{request_id}', '00000000-0000-4000-8000-000000000000');

    test('every control-plane route refuses a missing session, an API key (in any position) and a bogus session with 401', async () => {
      const sessionRoutes = documented.filter((o) => o.schemes.includes('sessionBearer')).map((o) => o.id);
      // The document's session routes are exactly the registered /orgs and /auth routes, sign-in itself aside.
      const registeredControl = routeIds(recorder.routes).filter(
        (id) =>
          /^\w+ \/(orgs|auth)(\/|$)/.test(id) &&
          id !== 'POST /auth/magic-link' &&
          id !== 'POST /auth/magic-link/verify',
      );
      expect(sessionRoutes.sort()).toEqual(registeredControl);
      expect(sessionRoutes.length).toBeGreaterThanOrEqual(15);

      const bogusSession = `sess_${'A'.repeat(43)}`;
      const failures: unknown[] = [];
      for (const id of sessionRoutes) {
        const method = methodOf(id);
        const path = concrete(id.slice(method.length + 1));
        const body = method === 'GET' || method === 'DELETE' ? undefined : { name: 'n', email: 'x@a.test' };
        const attempts: [string, { token?: string; headers?: Record<string, string> }][] = [
          ['no credentials', {}],
          ['API key as Bearer', { token: alice.key }],
          ['API key in x-api-key', { headers: { 'x-api-key': alice.key } }],
          ['API key as the session cookie', { headers: { cookie: `session=${alice.key}` } }],
          ['a well-formed unknown session', { token: bogusSession }],
          ['a session token with a Basic scheme', { headers: { authorization: `Basic ${alice.session}` } }],
        ];
        for (const [what, options] of attempts) {
          const response = await call(app.url, method, path, { ...options, ...(body ? { body } : {}) });
          if (response.status !== 401 || typeof response.body?.error !== 'string')
            failures.push({ id, what, status: response.status });
        }
        // The same request with Alice's own session is not refused (so the 401s above are the credential's).
        if (method === 'GET') {
          const ok = await call(app.url, method, path, { token: alice.session });
          if (ok.status !== 200) failures.push({ id, what: "Alice's session", status: ok.status });
        }
      }
      expect(failures).toEqual([]);
    });

    test('every data-plane route refuses a session token as the API key (header, x-api-key, body, cookie, query) with 401', async () => {
      const apiKeyRoutes = documented.filter((o) => o.schemes.includes('apiKeyBearer')).map((o) => o.id);
      expect(apiKeyRoutes.sort()).toEqual(
        [
          'GET /usage',
          'POST /crawl',
          'POST /extract',
          'POST /map',
          'POST /mcp',
          'POST /search',
          'POST /search/{vertical}',
          'POST /research',
          'GET /research/{request_id}',
          'POST /feedback',
          'POST /logs',
          'POST /org-usage',
        ].sort(),
      );
      const bodies: Record<string, unknown> = {
        'POST /search': { query: 'x' },
        'POST /search/{vertical}': { query: 'x' },
        'POST /extract': { urls: ['https://example.com/'] },
        'POST /map': { url: 'https://example.com/' },
        'POST /crawl': { url: 'https://example.com/' },
        'POST /research': { input: 'x' },
        'POST /feedback': { request_id: 'x', used_ids: [] },
        'POST /logs': { limit: 1 },
        'POST /org-usage': { organization_name: 'x' },
        'POST /mcp': {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'search', arguments: { query: 'x' } },
        },
      };
      const mcpHeaders = { accept: 'application/json, text/event-stream' };
      const failures: unknown[] = [];
      for (const id of apiKeyRoutes) {
        const method = methodOf(id);
        const path = concrete(id.slice(method.length + 1));
        const body = bodies[id];
        const extra = id === 'POST /mcp' ? mcpHeaders : {};
        const attempts: [string, string, { token?: string; headers?: Record<string, string>; body?: unknown }][] = [
          ['session as Bearer', path, { token: alice.session, headers: extra }],
          ['session in x-api-key', path, { headers: { ...extra, 'x-api-key': alice.session } }],
          ['session cookie alone', path, { headers: { ...extra, cookie: `session=${alice.session}` } }],
        ];
        if (body !== undefined)
          attempts.push([
            'session as the body api_key',
            path,
            { headers: extra, body: { ...(body as object), api_key: alice.session } },
          ]);
        if (id === 'POST /mcp')
          attempts.push(['session as ?tavilyApiKey', `${path}?tavilyApiKey=${alice.session}`, { headers: extra }]);
        for (const [what, url, options] of attempts) {
          const response = await call(app.url, method, url, {
            ...options,
            ...(options.body === undefined && body !== undefined ? { body } : {}),
          });
          if (response.status !== 401) failures.push({ id, what, status: response.status });
        }
      }
      expect(failures).toEqual([]);
      // Alice's real key opens the free usage route (so the 401s above are the credential's).
      expect((await call(app.url, 'GET', '/usage', { token: alice.key })).status).toBe(200);
    });
  });
});
