import { createHash } from 'node:crypto';
import { type Json, call, setUpOrganization, signIn, useTestApp } from './support/test-app.js';

interface Key {
  id: string;
  key: string;
  prefix: string;
}

const LOG_ENTRY_FIELDS = [
  'api_key',
  'credits',
  'depth',
  'endpoint',
  'request_id',
  'response_time',
  'status',
  'timestamp',
];
const NOT_OWNER = "Please authenticate with the organization owner's personal API key, not an organization API key.";
const today = () => new Date().toISOString().slice(0, 10);
const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/**
 * Tavily's account routes, POST /logs and POST /org-usage (Tavily's OpenAPI), with API keys against the real server,
 * PostgreSQL and Redis: their shapes, masked keys and no call's input in a log entry, filters and paging, 401/403/404,
 * 400 for bad bodies, and one organization's key never reading another's calls or usage. @tavily/core 0.7 has no
 * method for either route, so they are called over plain HTTP, as tavily-cli and the OpenAPI clients do.
 */
describe("Tavily's account routes (POST /logs, POST /org-usage)", () => {
  let alice: Awaited<ReturnType<typeof setUpOrganization>>;
  let bob: Awaited<ReturnType<typeof setUpOrganization>>;
  let aliceOrgName: string;
  let bobOrgName: string;
  let secondProject: string;
  const keys: Record<string, Key> = {};
  /** The x-request-id of each data-plane call made in beforeAll, by name. */
  const ids: Record<string, string> = {};

  const logs = (key: string | undefined, body: unknown) => call(app.url, 'POST', '/logs', { token: key, body });
  const orgUsage = (key: string | undefined, body: unknown) =>
    call(app.url, 'POST', '/org-usage', { token: key, body });
  const requestIds = (answer: Json) => (answer.body.logs as { request_id: string }[]).map((e) => e.request_id);
  const expectError = (answer: Json, status: number, message?: string | RegExp) => {
    expect({ status: answer.status, body: answer.body }).toEqual({
      status,
      body: expect.objectContaining({ error: expect.any(String), detail: { error: answer.body.error } }),
    });
    if (message !== undefined) expect(answer.body.error).toMatch(message);
  };

  const app = useTestApp({}, 120_000);
  beforeAll(async () => {
    alice = await setUpOrganization(app, app.smtp, 'alice@account-routes.test');
    bob = await setUpOrganization(app, app.smtp, 'bob@account-routes.test');
    aliceOrgName = (await call(app.url, 'GET', `/orgs/${alice.orgId}`, { token: alice.session })).body.name;
    bobOrgName = (await call(app.url, 'GET', `/orgs/${bob.orgId}`, { token: bob.session })).body.name;
    const project = await call(app.url, 'POST', `/orgs/${alice.orgId}/projects`, {
      token: alice.session,
      body: { name: 'Second' },
    });
    secondProject = project.body.id;
    const added = await call(app.url, 'POST', `/orgs/${alice.orgId}/members`, {
      token: alice.session,
      body: { email: 'admin@account-routes.test', role: 'admin' },
    });
    expect(added.status).toBe(201);
    const admin = await signIn(app, app.smtp, 'admin@account-routes.test');

    const key = async (name: string, session: string, orgId: string, body: Record<string, unknown>) => {
      const created = await call(app.url, 'POST', `/orgs/${orgId}/api-keys`, {
        token: session,
        body: { name, ...body },
      });
      expect(created.status).toBe(201);
      keys[name] = { id: created.body.id, key: created.body.key, prefix: created.body.prefix };
    };
    await key('Owner', alice.session, alice.orgId, { project_id: alice.projectId });
    await key('Owner test', alice.session, alice.orgId, { project_id: alice.projectId, environment: 'test' });
    await key('Admin', admin, alice.orgId, { project_id: alice.projectId });
    await key('Second', alice.session, alice.orgId, { project_id: secondProject });
    await key('Revoked', alice.session, alice.orgId, { project_id: alice.projectId });
    await key('Bob', bob.session, bob.orgId, { project_id: bob.projectId });

    const send = async (name: string, key: string, path: string, body: unknown) => {
      const response = await call(app.url, 'POST', path, { token: key, body, headers: { 'x-request-id': name } });
      ids[name] = response.headers.get('x-request-id')!;
      return response.status;
    };
    expect(await send('basic', keys.Owner!.key, '/search', { query: 'alice secret words' })).toBe(200);
    expect(
      await send('advanced', keys.Owner!.key, '/search', { query: 'deeper words', search_depth: 'advanced' }),
    ).toBe(200);
    expect(await send('vertical', keys.Owner!.key, '/search/news', { query: 'vertical words' })).toBe(200);
    expect(await send('admin', keys.Admin!.key, '/search', { query: 'admin words' })).toBe(200);
    expect(await send('second', keys.Second!.key, '/search', { query: 'second project words' })).toBe(200);
    expect(await send('test', keys['Owner test']!.key, '/search', { query: 'test key words' })).toBe(200);
    expect(await send('bob', keys.Bob!.key, '/search', { query: 'bob private words' })).toBe(200);
    const revoked = await call(app.url, 'DELETE', `/orgs/${alice.orgId}/api-keys/${keys.Revoked!.id}`, {
      token: alice.session,
    });
    expect(revoked.status).toBe(200);
  }, 120_000);

  describe('POST /logs', () => {
    /** Every call of Alice's organization made in beforeAll, newest first. */
    const aliceCalls = ['test', 'second', 'admin', 'vertical', 'advanced', 'basic'];

    test("Tavily's shape: the organization's calls, newest first, with endpoint, depth, time, credits and status", async () => {
      const answer = await logs(keys.Owner!.key, { limit: 100 });
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body).sort()).toEqual(['count', 'logs', 'next_cursor', 'request_id', 'response_time']);
      expect(answer.body).toMatchObject({
        count: 6,
        next_cursor: null,
        request_id: answer.headers.get('x-request-id'),
      });
      expect(answer.body.response_time).toEqual(expect.any(Number));
      expect(requestIds(answer)).toEqual(aliceCalls.map((name) => ids[name]));
      for (const entry of answer.body.logs as Record<string, unknown>[]) {
        expect(Object.keys(entry).sort()).toEqual(LOG_ENTRY_FIELDS);
        expect(entry).toMatchObject({ endpoint: 'search', status: 200, timestamp: expect.stringMatching(/^\d{4}-/) });
        expect(entry.response_time).toBeGreaterThan(0);
      }
      const byName = (name: string) =>
        (answer.body.logs as Record<string, unknown>[]).find((e) => e.request_id === ids[name]);
      expect(byName('basic')).toMatchObject({ depth: 'basic', credits: 1, api_key: `${keys.Owner!.prefix}...` });
      expect(byName('advanced')).toMatchObject({ depth: 'advanced', credits: 2 });
      expect(byName('vertical')).toMatchObject({ endpoint: 'search', depth: 'news' });
      expect(byName('admin')).toMatchObject({ api_key: `${keys.Admin!.prefix}...` });
      // The default limit is Tavily's: 10 entries (six calls here).
      expect((await logs(keys.Owner!.key, {})).body.count).toBe(6);
      // A request without any body asks for the defaults.
      expect((await call(app.url, 'POST', '/logs', { token: keys.Owner!.key })).body.count).toBe(6);
    });

    test('never the key, its hash, nor what a call asked for', async () => {
      const answer = await logs(keys.Owner!.key, { limit: 100 });
      const text = JSON.stringify(answer.body);
      for (const key of Object.values(keys)) {
        expect(text).not.toContain(key.key);
        expect(text).not.toContain(createHash('sha256').update(key.key).digest('hex'));
      }
      for (const words of ['secret', 'deeper', 'vertical words', 'admin words', 'second project', 'test key'])
        expect(text).not.toContain(words);
    });

    test('paged by limit and next_cursor, without overlap', async () => {
      const first = await logs(keys.Owner!.key, { limit: 4 });
      expect(first.body.count).toBe(4);
      expect(first.body.next_cursor).toEqual(expect.stringMatching(/^\d+$/));
      const second = await logs(keys.Owner!.key, { limit: 4, cursor: first.body.next_cursor });
      expect(second.body).toMatchObject({ count: 2, next_cursor: null });
      expect([...requestIds(first), ...requestIds(second)]).toEqual(aliceCalls.map((name) => ids[name]));
    });

    test('filtered by endpoints, key, project and days', async () => {
      const of = async (body: Record<string, unknown>, key = keys.Owner!.key) => requestIds(await logs(key, body));
      expect(await of({ endpoints: ['research', 'crawl'] })).toEqual([]);
      expect(await of({ endpoints: ['search'] })).toHaveLength(6);
      expect(await of({ filter_by_api_key: true })).toEqual(['vertical', 'advanced', 'basic'].map((n) => ids[n]));
      expect(await of({ filter_by_api_key: true }, keys.Admin!.key)).toEqual([ids.admin]);
      expect(await of({ filter_by_api_key: false }, keys.Admin!.key)).toHaveLength(6);
      expect(await of({ project_id: secondProject })).toEqual([ids.second]);
      expect(await of({ start_date: today(), end_date: today() })).toHaveLength(6);
      expect(await of({ start_date: dayOffset(1) })).toEqual([]);
      expect(await of({ end_date: dayOffset(-1) })).toEqual([]);
    });

    test("a key of one organization never reads another's calls", async () => {
      expect(requestIds(await logs(keys.Bob!.key, { limit: 100 }))).toEqual([ids.bob]);
      expect(requestIds(await logs(keys.Owner!.key, { limit: 100 }))).not.toContain(ids.bob);
      expect(requestIds(await logs(keys.Owner!.key, { project_id: bob.projectId }))).toEqual([]);
      expect(requestIds(await logs(keys.Bob!.key, { project_id: alice.projectId }))).toEqual([]);
    });

    test('401 without a valid key; 400 naming the first problem of a bad body', async () => {
      expectError(await logs(undefined, {}), 401);
      expectError(await logs(keys.Revoked!.key, {}), 401);
      expectError(await logs(`${keys.Owner!.key}x`, {}), 401);
      const bad: [unknown, RegExp][] = [
        [{ limit: 0 }, /^limit must be an integer from 1 to 10000/],
        [{ limit: 10_001 }, /^limit must be/],
        [{ limit: '5' }, /^limit must be/],
        [{ endpoints: ['news'] }, /^endpoints must each be one of: search, extract, map, crawl, research/],
        [{ endpoints: 'search' }, /^endpoints must/],
        [{ start_date: '2026-02-30' }, /^start_date must be a date written YYYY-MM-DD/],
        [{ end_date: '08/01/2026' }, /^end_date must be a date/],
        [{ start_date: '2026-08-02', end_date: '2026-08-01' }, /^end_date must not be before start_date/],
        [{ project_id: 'main' }, /^project_id must be a project id/],
        [{ filter_by_api_key: 'yes' }, /^filter_by_api_key must be true or false/],
        [{ cursor: 'abc' }, /^cursor must be/],
        [[{ limit: 1 }], /^The body must be a JSON object/],
      ];
      for (const [body, message] of bad) expectError(await logs(keys.Owner!.key, body), 400, message);
    });
  });

  describe('POST /org-usage', () => {
    test("Tavily's shape: the organization, its filters, totals and every key, by type, from the read models", async () => {
      const answer = await orgUsage(keys.Owner!.key, { organization_name: aliceOrgName });
      expect(answer.status).toBe(200);
      expect(answer.body.organization).toEqual({
        name: aliceOrgName,
        filters: { start_date: `${today().slice(0, 7)}-01`, end_date: today(), project_id: null, depth: null },
      });
      const search = { usage: 0, paygo_cost_usd: 0, request_count: 0 };
      const none = { search, extract: search, crawl: search, map: search, research: search };
      const keysByName = Object.fromEntries(
        (answer.body.keys as { name: string }[]).map((k) => [k.name, k as unknown as Record<string, unknown>]),
      );
      // Every key but the revoked one (it used nothing), with the search credits each spent.
      expect(Object.keys(keysByName).sort()).toEqual(['Admin', 'Owner', 'Owner test', 'Second']);
      expect(keysByName.Owner).toEqual({
        key: `${keys.Owner!.prefix}...`,
        name: 'Owner',
        key_id: keys.Owner!.id,
        environment: 'live',
        usage: 4,
        paygo_cost_usd: 0,
        request_count: 3,
        by_type: { ...none, search: { usage: 4, paygo_cost_usd: 0, request_count: 3 } },
      });
      expect(keysByName['Owner test']).toMatchObject({ environment: 'test', usage: 1, request_count: 1 });
      expect(answer.body.totals).toEqual({
        usage: 7,
        paygo_cost_usd: 0,
        request_count: 6,
        by_type: { ...none, search: { usage: 7, paygo_cost_usd: 0, request_count: 6 } },
      });
      // The same figures as the members' usage report of the month.
      const report = await call(app.url, 'GET', `/orgs/${alice.orgId}/usage`, { token: alice.session });
      expect(answer.body.totals.usage).toBe(report.body.credits_used + report.body.test_credits_used);
      expect(answer.body.totals.request_count).toBe(report.body.requests);
    });

    test('filtered by depth, project and days', async () => {
      const totals = async (body: Record<string, unknown>) =>
        (await orgUsage(keys.Owner!.key, { organization_name: aliceOrgName, ...body })).body;
      const advanced = await totals({ depth: 'advanced' });
      expect(advanced.organization.filters.depth).toBe('advanced');
      expect(advanced.totals).toMatchObject({ usage: 2, request_count: 1 });
      expect((await totals({ depth: 'news' as never })).error).toMatch(/^depth must be one of/);
      expect((await totals({ depth: 'pro' })).totals).toMatchObject({ usage: 0, request_count: 0 });
      const second = await totals({ project_id: secondProject });
      expect((second.keys as { name: string }[]).map((k) => k.name)).toEqual(['Second']);
      expect(second.totals).toMatchObject({ usage: 1, request_count: 1 });
      expect((await totals({ start_date: dayOffset(1), end_date: dayOffset(2) })).totals.usage).toBe(0);
      expect((await totals({ start_date: today(), end_date: today() })).totals.usage).toBe(7);
    });

    test("403 for any key but an owner's live key; 404 for any organization but the key's own", async () => {
      expectError(await orgUsage(keys.Admin!.key, { organization_name: aliceOrgName }), 403, NOT_OWNER);
      expectError(await orgUsage(keys['Owner test']!.key, { organization_name: aliceOrgName }), 403, NOT_OWNER);
      expectError(await orgUsage(keys.Admin!.key, { organization_name: bobOrgName }), 403, NOT_OWNER);
      expectError(await orgUsage(keys.Owner!.key, { organization_name: bobOrgName }), 404);
      expectError(await orgUsage(keys.Owner!.key, { organization_name: aliceOrgName.toUpperCase() }), 404);
      expectError(await orgUsage(keys.Bob!.key, { organization_name: aliceOrgName }), 404);
      const theirs = await orgUsage(keys.Bob!.key, { organization_name: bobOrgName });
      expect(theirs.status).toBe(200);
      expect((theirs.body.keys as { key_id: string }[]).map((k) => k.key_id)).toEqual([keys.Bob!.id]);
      expect(theirs.body.totals).toMatchObject({ usage: 1, request_count: 1 });
      const text = JSON.stringify((await orgUsage(keys.Owner!.key, { organization_name: aliceOrgName })).body);
      for (const key of Object.values(keys)) {
        expect(text).not.toContain(key.key);
        expect(text).not.toContain(createHash('sha256').update(key.key).digest('hex'));
      }
      expect(text).not.toContain(keys.Bob!.id);
    });

    test('401 without a valid key; 400 naming the first problem of a bad body', async () => {
      expectError(await orgUsage(undefined, { organization_name: aliceOrgName }), 401);
      expectError(await orgUsage(keys.Revoked!.key, { organization_name: aliceOrgName }), 401);
      const bad: [unknown, RegExp][] = [
        [{}, /^organization_name is required/],
        [{ organization_name: '' }, /^organization_name is required/],
        [{ organization_name: 42 }, /^organization_name is required/],
        [{ organization_name: aliceOrgName, start_date: '2026-13-01' }, /^start_date must be a date/],
        [{ organization_name: aliceOrgName, start_date: dayOffset(1), end_date: today() }, /^end_date must not be/],
        [{ organization_name: aliceOrgName, project_id: 'x' }, /^project_id must be a project id/],
        ['"name"', /^The body must be a JSON object/],
      ];
      for (const [body, message] of bad) expectError(await orgUsage(keys.Owner!.key, body), 400, message);
    });
  });
});
