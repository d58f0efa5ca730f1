import { Database } from '../src/database/database.js';
import { RequestLogWriter } from '../src/request-log/request-log.writer.js';
import { StaticSite } from './support/static-site.js';
import { call, setUpOrganization, useTestApp } from './support/test-app.js';
import { TEST_DATABASE_URL } from './support/test-database.js';

interface Logged {
  occurred_at: string;
  request_id: string;
  method: string;
  path: string;
  operation: string;
  status: number;
  key_id: string;
  key_name: string | null;
  key_prefix: string | null;
  key_environment: string;
  project_id: string;
  summary: string | null;
  depth: string | null;
  latency_ms: number;
  credits: number | null;
  error: string | null;
}

/**
 * The request log: every data-plane call of an organization's keys, refused ones included, through
 * GET /orgs/{org_id}/requests; never a secret in it; kept outside the ledger, written after the responses.
 */
describe('the request log (GET /orgs/{org_id}/requests)', () => {
  let site: StaticSite;
  let owner: Awaited<ReturnType<typeof setUpOrganization>>;
  let stranger: Awaited<ReturnType<typeof setUpOrganization>>;
  const keys: Record<string, { id: string; key: string; prefix: string }> = {};
  const ids: Record<string, string> = {};

  const requests = async (query = '', token = owner.session) => {
    await app.app.get(RequestLogWriter).flush();
    return call(app.url, 'GET', `/orgs/${owner.orgId}/requests${query}`, { token });
  };
  /** The log is written after each response's connection is done with it: wait until it holds `count` rows. */
  const waitForRows = async (count: number): Promise<Logged[]> => {
    for (const deadline = Date.now() + 10_000; ;) {
      const page = await requests('?limit=500');
      const rows = page.body.requests as Logged[];
      if (rows.length >= count) return rows;
      if (Date.now() > deadline) throw new Error(`the request log holds ${rows.length} rows, not ${count}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const byId = (rows: Logged[], name: string) => rows.find((r) => r.request_id === ids[name]);

  beforeAll(async () => {
    site = await new StaticSite('test/fixtures', {
      '/page.html': '<!doctype html><html><head><title>Page</title></head><body><p>A page.</p></body></html>',
    }).start();
  }, 120_000);
  const app = useTestApp(() => ({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1' } }), 120_000);
  beforeAll(async () => {
    owner = await setUpOrganization(app, app.smtp, 'log@requests.test');
    stranger = await setUpOrganization(app, app.smtp, 'other@requests.test');
    const key = async (name: string, body: Record<string, unknown>) => {
      const created = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, {
        token: owner.session,
        body: { name, project_id: owner.projectId, ...body },
      });
      expect(created.status).toBe(201);
      keys[name] = { id: created.body.id, key: created.body.key, prefix: created.body.prefix };
    };
    await key('Live', {});
    await key('Basic only', { depth_limit: 'basic', scopes: ['search'] });
    await key('Revoked', {});
    await key('CI', { environment: 'test' });
    const strangerKey = await call(app.url, 'POST', `/orgs/${stranger.orgId}/api-keys`, {
      token: stranger.session,
      body: { name: 'Theirs', project_id: stranger.projectId },
    });

    const send = async (name: string, path: string, token: string | null, body: unknown, headers = {}) => {
      const response = await call(app.url, 'POST', path, {
        body,
        headers: {
          'x-request-id': `${name}-${Date.now()}`,
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
      });
      ids[name] = response.headers.get('x-request-id')!;
      return response.status;
    };
    expect(await send('search', '/search', keys.Live!.key, { query: 'danube delta birds' })).toBe(200);
    expect(await send('answer', '/search', null, { query: 'who', include_answer: true, api_key: keys.Live!.key })).toBe(
      200,
    );
    expect(
      await send('extract', '/extract', keys.Live!.key, {
        urls: [`http://user:secret@127.0.0.1:${new URL(site.origin).port}/page.html?token=s3cr3t#frag`],
      }),
    ).toBe(200);
    expect(await send('vertical', '/search/news', keys.Live!.key, { query: 'river news' })).toBe(200);
    expect(await send('depth', '/search', keys['Basic only']!.key, { query: 'deep', search_depth: 'advanced' })).toBe(
      403,
    );
    expect(await send('scope', '/extract', keys['Basic only']!.key, { urls: [`${site.origin}/page.html`] })).toBe(403);
    expect(await send('invalid', '/search', keys.Live!.key, { query: 42 })).toBe(400);
    const revoked = await call(app.url, 'DELETE', `/orgs/${owner.orgId}/api-keys/${keys.Revoked!.id}`, {
      token: owner.session,
    });
    expect(revoked.status).toBe(200);
    expect(await send('revoked', '/search', keys.Revoked!.key, { query: 'after revoke' })).toBe(401);
    expect(
      await send(
        'mcp',
        '/mcp',
        keys.Live!.key,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { query: 'nile' } } },
        { accept: 'application/json, text/event-stream' },
      ),
    ).toBe(200);
    // The test key's plan allows 20 calls a minute: the 21st is refused.
    for (let i = 0; i < 20; i++) expect(await send(`ci-${i}`, '/search', keys.CI!.key, { query: `ci ${i}` })).toBe(200);
    expect(await send('limited', '/search', keys.CI!.key, { query: 'one too many' })).toBe(429);
    // Keys that belong to no organization of the caller's, or to none at all.
    expect(await send('unknown', '/search', `sk_live_${'x'.repeat(32)}`, { query: 'nobody' })).toBe(401);
    expect(await send('theirs', '/search', strangerKey.body.key, { query: 'their call' })).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await site?.stop();
  });

  test('every call of the organization’s keys, refused ones included, newest first, with its facts', async () => {
    const rows = await waitForRows(30);
    expect(rows).toHaveLength(30);
    expect(rows[0]!.request_id).toBe(ids.limited);
    expect(byId(rows, 'search')).toEqual({
      occurred_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      request_id: ids.search,
      method: 'POST',
      path: '/search',
      operation: 'search',
      status: 200,
      key_id: keys.Live!.id,
      key_name: 'Live',
      key_prefix: keys.Live!.prefix,
      key_environment: 'live',
      project_id: owner.projectId,
      summary: 'danube delta birds',
      depth: 'basic',
      latency_ms: expect.any(Number),
      credits: 1,
      error: null,
    });
    expect(byId(rows, 'search')!.latency_ms).toBeGreaterThan(0);
    // The index is empty: no answer came back, so only the search is billed (no surcharge).
    expect(byId(rows, 'answer')).toMatchObject({ status: 200, credits: 1, key_id: keys.Live!.id, summary: 'who' });
    expect(byId(rows, 'vertical')).toMatchObject({ operation: 'vertical', path: '/search/:vertical', credits: 1 });
    expect(byId(rows, 'vertical')).toMatchObject({ summary: 'news: river news', depth: 'news' });
    expect(byId(rows, 'depth')).toMatchObject({ status: 403, credits: null, key_name: 'Basic only', summary: 'deep' });
    expect(byId(rows, 'depth')!.depth).toBe('advanced');
    expect(byId(rows, 'scope')).toMatchObject({ status: 403, operation: 'extract', credits: null });
    expect(byId(rows, 'invalid')).toMatchObject({ status: 400, credits: null });
    expect(byId(rows, 'revoked')).toMatchObject({ status: 401, key_id: keys.Revoked!.id, summary: 'after revoke' });
    expect(byId(rows, 'mcp')).toMatchObject({ operation: 'mcp', status: 200, credits: 1, summary: 'search: nile' });
    expect(byId(rows, 'mcp')!.depth).toBeNull();
    expect(byId(rows, 'limited')).toMatchObject({ status: 429, key_environment: 'test', credits: null });
    expect(byId(rows, 'unknown')).toBeUndefined();
    expect(byId(rows, 'theirs')).toBeUndefined();
  });

  test('never a secret: no key, no URL query string, no userinfo', async () => {
    const rows = await waitForRows(30);
    const extract = byId(rows, 'extract')!;
    expect(extract.summary).toBe(`http://127.0.0.1:${new URL(site.origin).port}/page.html`);
    const text = JSON.stringify(rows);
    for (const { key } of Object.values(keys)) expect(text).not.toContain(key);
    expect(text).not.toContain('s3cr3t');
    expect(text).not.toContain('secret@');
    const db = Database.connect(TEST_DATABASE_URL, app.schema, 1);
    try {
      const stored = await db.query('SELECT * FROM request_log');
      const all = JSON.stringify(stored.rows);
      for (const { key } of Object.values(keys)) expect(all).not.toContain(key);
      expect(all).not.toContain('s3cr3t');
    } finally {
      await db.close();
    }
  });

  test('filters: status (exact or class), operation, key, environment; pages by cursor', async () => {
    await waitForRows(30);
    const statuses = async (query: string) =>
      ((await requests(query)).body.requests as Logged[]).map((r) => r.status).sort();
    expect(await statuses('?status=4xx')).toEqual([400, 401, 403, 403, 429]);
    expect(await statuses('?status=403')).toEqual([403, 403]);
    expect(await statuses('?operation=extract')).toEqual([200, 403]);
    expect(await statuses(`?key_id=${keys.Revoked!.id}`)).toEqual([401]);
    expect((await statuses('?environment=test')).length).toBe(21);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await requests(`?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.retention_days).toBe(30);
      seen.push(...(page.body.requests as Logged[]).map((r) => r.request_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(30);
    expect(new Set(seen).size).toBe(30);
  });

  test.each([
    ['status=200ok', /^status /],
    ['status=6xx', /^status /],
    ['operation=map2', /^operation /],
    ['key_id=nope', /^key_id /],
    ['environment=prod', /^environment /],
    ['limit=0', /^limit /],
    ['cursor=abc', /^cursor /],
    ['request_id=has%20space', /^request_id /],
    ['start_date=2026-02-30', /^start_date /],
    ['end_date=yesterday', /^end_date /],
    ['start_date=2026-05-02&end_date=2026-05-01', /^end_date must not be before start_date/],
  ])('%s is a 400 naming the field', async (query, field) => {
    const response = await requests(`?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(field);
    expect(response.body.detail).toEqual({ error: response.body.error });
  });

  test('a refused call says why, as its answer did (without a secret); a served one says nothing', async () => {
    const rows = await waitForRows(30);
    expect(byId(rows, 'depth')!.error).toMatch(/basic depth/);
    expect(byId(rows, 'scope')!.error).toMatch(/scope/);
    expect(byId(rows, 'invalid')!.error).toMatch(/query/);
    expect(byId(rows, 'revoked')!.error).toMatch(/key/i);
    expect(byId(rows, 'limited')!.error).toMatch(/excessive requests/);
    for (const served of ['search', 'answer', 'extract', 'vertical', 'mcp'])
      expect(byId(rows, served)!.error).toBeNull();
  });

  test('one time for one call: a charge is recorded at the instant the request log has for its call', async () => {
    const rows = await waitForRows(30);
    for (const name of ['search', 'answer', 'extract', 'vertical', 'mcp']) {
      const ledger = await call(app.url, 'GET', `/orgs/${owner.orgId}/ledger?request_id=${ids[name]}`, {
        token: owner.session,
      });
      expect(ledger.status).toBe(200);
      const entries = ledger.body.entries as { request_id: string; occurred_at: string; credits: number }[];
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ request_id: ids[name], occurred_at: byId(rows, name)!.occurred_at });
      expect(entries[0]!.credits).toBe(byId(rows, name)!.credits);
    }
    const none = await call(app.url, 'GET', `/orgs/${owner.orgId}/ledger?month=all&request_id=${ids.depth}`, {
      token: owner.session,
    });
    expect(none.body.entries).toEqual([]);
  });

  test('one call by its request id: its row and its charges; refused ones have none; others’ are a 404', async () => {
    await waitForRows(30);
    const detail = (name: string, token = owner.session, org = owner.orgId) =>
      call(app.url, 'GET', `/orgs/${org}/requests/${encodeURIComponent(ids[name] ?? name)}`, { token });
    const search = await detail('search');
    expect(search.status).toBe(200);
    expect(search.body.requests).toHaveLength(1);
    expect(search.body.requests[0]).toMatchObject({ request_id: ids.search, status: 200, credits: 1 });
    expect(search.body.charges).toHaveLength(1);
    expect(search.body.charges[0]).toMatchObject({ request_id: ids.search, credits: 1, operation: 'search' });
    expect(search.body.charges[0].occurred_at).toBe(search.body.requests[0].occurred_at);
    expect(search.body.credits).toBe(1);
    const refused = await detail('depth');
    expect(refused.status).toBe(200);
    expect(refused.body.requests[0]).toMatchObject({ status: 403, error: expect.stringMatching(/basic depth/) });
    expect(refused.body).toMatchObject({ charges: [], credits: 0 });
    for (const missing of [await detail('no-such-request'), await detail('has space'), await detail('theirs')]) {
      expect(missing.status).toBe(404);
      expect(missing.body.error).toMatch(/No call with this request id/);
    }
    // A stranger learns nothing of the owner's calls, not even whether an id exists.
    const probe = await detail('search', stranger.session);
    expect(probe.status).toBe(404);
    expect(probe.body.error).toBe('organization not found');
  });

  test('filters by request id, project and UTC days', async () => {
    await waitForRows(30);
    const ids_ = async (query: string) => ((await requests(query)).body.requests as Logged[]).map((r) => r.request_id);
    expect(await ids_(`?request_id=${ids.depth}`)).toEqual([ids.depth]);
    expect(await ids_(`?project_id=${owner.projectId}&limit=500`)).toHaveLength(30);
    expect(await ids_(`?project_id=${stranger.projectId}`)).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect(await ids_(`?start_date=${yesterday}&end_date=${tomorrow}&limit=500`)).toHaveLength(30);
    expect(await ids_(`?start_date=${tomorrow}`)).toEqual([]);
    expect(await ids_(`?end_date=${yesterday}`)).toEqual([]);
    expect((await ids_(`?end_date=${today}&limit=500`)).length + (await ids_(`?start_date=${tomorrow}`)).length).toBe(
      (await ids_(`?start_date=${today}&limit=500`)).length,
    );
  });

  test('CSV export (Accept: text/csv): every matching call, its reason, never a secret', async () => {
    await waitForRows(30);
    const csv = await call(app.url, 'GET', `/orgs/${owner.orgId}/requests?status=4xx`, {
      token: owner.session,
      headers: { accept: 'text/csv' },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="requests-/);
    const lines = (csv.body as string).trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'occurred_at,request_id,status,error,method,path,operation,depth,summary,project_id,key_id,key_name,' +
        'key_prefix,key_environment,latency_ms,credits',
    );
    expect(lines).toHaveLength(1 + 5);
    expect(lines.find((line) => line.includes(ids.depth!))).toMatch(/,403,.*basic depth/);
    const all = await call(app.url, 'GET', `/orgs/${owner.orgId}/requests`, {
      token: owner.session,
      headers: { accept: 'text/csv' },
    });
    expect((all.body as string).trimEnd().split('\r\n')).toHaveLength(1 + 30);
    for (const { key } of Object.values(keys)) expect(all.body).not.toContain(key);
    expect(all.body).not.toContain('s3cr3t');
  });

  test('another organization gets 404; no session gets 401', async () => {
    const theirs = await requests('', stranger.session);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toBe('organization not found');
    expect((await call(app.url, 'GET', `/orgs/${owner.orgId}/requests`)).status).toBe(401);
    const own = await call(app.url, 'GET', `/orgs/${stranger.orgId}/requests`, { token: stranger.session });
    expect((own.body.requests as Logged[]).map((r) => r.request_id)).toEqual([ids.theirs]);
  });

  test('rows older than the retention are deleted', async () => {
    const db = Database.connect(TEST_DATABASE_URL, app.schema, 1);
    try {
      await db.query(
        `INSERT INTO request_log (org_id, occurred_at, request_id, method, path, operation, status, key_id,
           key_environment, project_id, summary, latency_ms, credits)
         SELECT org_id, now() - interval '31 days', 'old-one', method, path, operation, status, key_id,
           key_environment, project_id, summary, latency_ms, credits
         FROM request_log WHERE request_id = $1`,
        [ids.search],
      );
      expect((await db.query("SELECT 1 FROM request_log WHERE request_id = 'old-one'")).rowCount).toBe(1);
      await app.app.get(RequestLogWriter).prune();
      expect((await db.query("SELECT 1 FROM request_log WHERE request_id = 'old-one'")).rowCount).toBe(0);
      expect((await db.query('SELECT 1 FROM request_log WHERE request_id = $1', [ids.search])).rowCount).toBe(1);
    } finally {
      await db.close();
    }
  });
});
