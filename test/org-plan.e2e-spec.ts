import { EVENT_STORE, type EventStore } from '../src/event-store/event-store.port.js';
import { organizationStream } from '../src/organizations/events/organization.events.js';
import { call, setUpOrganization, signIn, useTestApp } from './support/test-app.js';

/** PUT /orgs/{org_id}/plan: the server's operators (OPERATOR_EMAILS) change a plan as `cli org plan` does. */
describe('/orgs/{org_id}/plan', () => {
  let owner: Awaited<ReturnType<typeof setUpOrganization>>;
  let operator: string;
  let key: string;
  const planPath = (orgId = owner.orgId) => `/orgs/${orgId}/plan`;
  const change = (body: unknown, token = operator, orgId = owner.orgId) =>
    call(app.url, 'PUT', planPath(orgId), { token, body });
  const organization = async () =>
    (await call(app.url, 'GET', `/orgs/${owner.orgId}`, { token: owner.session })).body as {
      plan: string;
      monthly_credit_allowance: number;
      rate_limit_per_minute: { live: number; test: number };
    };
  const events = () => app.app.get<EventStore>(EVENT_STORE).readStream(organizationStream(owner.orgId));

  // Listed as typed by an operator: with spaces and capitals, matched as sign-in normalises addresses.
  const app = useTestApp({ env: { OPERATOR_EMAILS: ' Root@Ops.TEST , second@ops.test' } });
  beforeAll(async () => {
    owner = await setUpOrganization(app, app.smtp, 'owner@plan.test');
    operator = await signIn(app, app.smtp, 'root@ops.test');
    const created = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, {
      token: owner.session,
      body: { name: 'k', project_id: owner.projectId },
    });
    key = created.body.key as string;
  });

  test('GET /auth/session says who is an operator', async () => {
    expect((await call(app.url, 'GET', '/auth/session', { token: operator })).body.operator).toBe(true);
    expect((await call(app.url, 'GET', '/auth/session', { token: owner.session })).body.operator).toBe(false);
  });

  describe('200', () => {
    test("an operator who is no member changes the plan: the plan's limits, one PlanChanged by the operator", async () => {
      const before = (await events()).length;
      const changed = await change({ plan: 'growth' });
      expect(changed.status).toBe(200);
      expect(changed.body).toEqual({
        org_id: owner.orgId,
        plan: 'growth',
        monthly_credit_allowance: 100_000,
        rate_limit_per_minute: { live: 1_000, test: 100 },
        overage: null,
      });
      const { org_id: _orgId, overage: _overage, ...limits } = changed.body as Record<string, unknown>;
      expect(await organization()).toMatchObject(limits);
      const stream = await events();
      expect(stream).toHaveLength(before + 1);
      expect(stream.at(-1)!.type).toBe('PlanChanged');
      expect(stream.at(-1)!.data).toEqual({ org_id: owner.orgId, ...changed.body });
      expect(stream.at(-1)!.metadata).toMatchObject({ actor: { type: 'operator', id: 'root@ops.test' } });
    });

    test('limits given override the plan’s, and the data plane meters with them at once', async () => {
      const changed = await change({ plan: 'free', monthly_credit_allowance: 5, rate_limit_per_minute: { live: 7 } });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({
        plan: 'free',
        monthly_credit_allowance: 5,
        rate_limit_per_minute: { live: 7, test: 20 },
      });
      const search = await call(app.url, 'POST', '/search', { token: key, body: { query: 'plan' } });
      expect(search.status).toBe(200);
      expect(search.headers.get('x-credits-limit')).toBe('5');
      expect(search.headers.get('x-ratelimit-limit')).toBe('7');
    });

    test('a plan with overage: its cap and price per credit, in the PlanChanged event and the answer', async () => {
      const overage = { credit_cap: 500, price_per_credit: '0.008' };
      const changed = await change({ plan: 'free', monthly_credit_allowance: 5, overage });
      expect(changed.status).toBe(200);
      expect(changed.body.overage).toEqual(overage);
      expect((await events()).at(-1)!.data).toMatchObject({ overage });
      const search = await call(app.url, 'POST', '/search', { token: key, body: { query: 'overage' } });
      expect(search.headers.get('x-credits-limit')).toBe('505');
      // A plan change without it ends the overage.
      expect((await change({ plan: 'free', monthly_credit_allowance: 5 })).body.overage).toBeNull();
    });

    test('an operator who is also the owner of another organization changes that one too', async () => {
      const second = await signIn(app, app.smtp, 'second@ops.test');
      const org = await call(app.url, 'POST', '/orgs', { token: second, body: { name: 'Ops own' } });
      const changed = await change({ plan: 'startup' }, second, org.body.id as string);
      expect(changed.status).toBe(200);
      expect(changed.body.plan).toBe('startup');
    });
  });

  describe('400', () => {
    test.each([
      ['no plan', {}, /plan/],
      ['an unknown plan', { plan: 'platinum' }, /plan must be one of: free, project/],
      ['a plan that is not a string', { plan: 3 }, /plan/],
      ['a negative allowance', { plan: 'free', monthly_credit_allowance: -1 }, /monthly_credit_allowance/],
      ['a fractional allowance', { plan: 'free', monthly_credit_allowance: 1.5 }, /monthly_credit_allowance/],
      ['an allowance as text', { plan: 'free', monthly_credit_allowance: '100' }, /monthly_credit_allowance/],
      ['a rate limit of 0', { plan: 'free', rate_limit_per_minute: { live: 0 } }, /rate_limit_per_minute\.live/],
      ['a rate limit past integer', { plan: 'free', rate_limit_per_minute: { test: 2 ** 31 } }, /test/],
      ['rate limits that are no object', { plan: 'free', rate_limit_per_minute: 'fast' }, /rate_limit_per_minute/],
      [
        'an overage price that is a number',
        { plan: 'free', overage: { credit_cap: 5, price_per_credit: 0.1 } },
        /price_per_credit/,
      ],
      [
        'an overage price in words',
        { plan: 'free', overage: { credit_cap: 5, price_per_credit: 'cheap' } },
        /price_per_credit/,
      ],
      ['a negative overage cap', { plan: 'free', overage: { credit_cap: -1, price_per_credit: '0.1' } }, /credit_cap/],
    ])('%s is refused naming the field, and nothing is appended', async (_what, body, message) => {
      const before = await events();
      const refused = await change(body);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(message);
      expect(refused.body.detail).toEqual({ error: refused.body.error });
      expect(await events()).toEqual(before);
    });

    test('a body that is not JSON', async () => {
      expect((await change('{"plan":')).status).toBe(400);
    });
  });

  describe('401', () => {
    test('a session is required, never an API key', async () => {
      for (const token of [undefined, key, 'sess_' + 'x'.repeat(43)]) {
        const response = await call(app.url, 'PUT', planPath(), {
          ...(token ? { token } : {}),
          body: { plan: 'enterprise' },
        });
        expect(response.status).toBe(401);
      }
      expect((await organization()).plan).not.toBe('enterprise');
    });
  });

  describe('403', () => {
    test('members who are no operators, the owner included, are refused and nothing changes', async () => {
      const admin = await signIn(app, app.smtp, 'admin@plan.test');
      const member = await signIn(app, app.smtp, 'member@plan.test');
      for (const [email, role] of [
        ['admin@plan.test', 'admin'],
        ['member@plan.test', 'member'],
      ]) {
        const added = await call(app.url, 'POST', `/orgs/${owner.orgId}/members`, {
          token: owner.session,
          body: { email, role },
        });
        expect(added.status).toBe(201);
      }
      const before = await events();
      for (const token of [owner.session, admin, member]) {
        const refused = await change({ plan: 'enterprise' }, token);
        expect(refused.status).toBe(403);
        expect(refused.body.error).toBe('only an operator of this server changes plans');
      }
      expect(await events()).toEqual(before);
      expect((await organization()).plan).not.toBe('enterprise');
    });

    test("an operator's session cookie from another site is refused (CSRF)", async () => {
      const refused = await call(app.url, 'PUT', planPath(), {
        body: { plan: 'enterprise' },
        headers: { cookie: `session=${operator}`, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      });
      expect(refused.status).toBe(403);
      expect((await organization()).plan).not.toBe('enterprise');
    });
  });

  describe('404', () => {
    test('a non-member who is no operator sees no organization: the same answer as for one that does not exist', async () => {
      const stranger = await signIn(app, app.smtp, 'stranger@plan.test');
      const theirs = await change({ plan: 'enterprise' }, stranger);
      const none = await change({ plan: 'enterprise' }, stranger, '00000000-0000-4000-8000-000000000000');
      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual(none.body);
      expect(none.status).toBe(404);
      expect((await organization()).plan).not.toBe('enterprise');
    });

    test('an operator gets 404 for an organization that does not exist, or a malformed or upper-cased id', async () => {
      for (const orgId of ['00000000-0000-4000-8000-000000000000', 'nope', owner.orgId.toUpperCase()]) {
        const response = await change({ plan: 'free' }, operator, orgId);
        expect({ orgId, status: response.status, error: response.body.error }).toEqual({
          orgId,
          status: 404,
          error: 'organization not found',
        });
      }
    });
  });
});
