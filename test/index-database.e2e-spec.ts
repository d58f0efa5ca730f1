import { Database, quoteIdent } from '../src/database/database.js';
import { INDEX_DATABASE } from '../src/database/index-database.js';
import { RequestLogWriter } from '../src/request-log/request-log.writer.js';
import { operatorCli } from './support/operator-cli.js';
import { StaticSite } from './support/static-site.js';
import { call, createProjectAndKey, setUpOrganization, useTestApp } from './support/test-app.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './support/test-database.js';

const INDEX_DATABASE_NAME = `test_index_${process.pid}`;
const INDEX_DATABASE_URL = Object.assign(new URL(TEST_DATABASE_URL), { pathname: `/${INDEX_DATABASE_NAME}` }).href;

/**
 * INDEX_DATABASE_URL: the search index, page cache, request log and feedback in a second database (on the same server
 * here), the ledger and read models in the first. Pages crawled and extracted are searchable, the request log names
 * the keys (read from the other database), feedback is kept, and the ledger still verifies.
 */
describe('the index in its own database (INDEX_DATABASE_URL)', () => {
  let site: StaticSite;
  let owner: Awaited<ReturnType<typeof setUpOrganization>>;
  let key: Awaited<ReturnType<typeof createProjectAndKey>>;

  beforeAll(async () => {
    const admin = Database.connect(TEST_DATABASE_URL, 'public', 1);
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(INDEX_DATABASE_NAME)}`);
      await admin.query(`CREATE DATABASE ${quoteIdent(INDEX_DATABASE_NAME)}`);
    } finally {
      await admin.close();
    }
    site = await new StaticSite('test/fixtures/site').start();
  }, 60_000);
  const app = useTestApp(
    () => ({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1', INDEX_DATABASE_URL, INDEX_DATABASE_POOL_SIZE: '4' } }),
    120_000,
  );
  afterAll(async () => {
    await site?.stop();
    const admin = Database.connect(TEST_DATABASE_URL, 'public', 1);
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(INDEX_DATABASE_NAME)} WITH (FORCE)`);
    } finally {
      await admin.close();
    }
  });
  beforeAll(async () => {
    owner = await setUpOrganization(app, app.smtp, 'owner@index-db.test');
    key = await createProjectAndKey(app, owner.session, owner.orgId);
  }, 60_000);

  const mainDb = () => app.app.get(Database);
  const indexDb = () => app.app.get<Database>(INDEX_DATABASE);
  const tablesOf = async (db: Database) =>
    (
      await db.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1',
        [app.schema],
      )
    ).rows.map((row) => row.table_name);
  const data = (path: string, body: Record<string, unknown>) => call(app.url, 'POST', path, { body, token: key.key });

  test('two pools on two databases, each migrated with its own set', async () => {
    expect(indexDb()).not.toBe(mainDb());
    const main = await tablesOf(mainDb());
    const index = await tablesOf(indexDb());
    expect(main).toEqual(expect.arrayContaining(['events', 'api_keys', 'idempotency_records', 'research_jobs']));
    expect(index).toEqual(
      expect.arrayContaining(['documents', 'search_postings', 'request_log', 'search_feedback', 'search_result_sets']),
    );
    expect(main.filter((table) => index.includes(table))).toEqual(['schema_migrations']);
    const sets = async (db: Database) =>
      (await db.query<{ s: string }>('SELECT DISTINCT migration_set AS s FROM schema_migrations ORDER BY 1')).rows;
    expect(await sets(mainDb())).toEqual([{ s: 'readModels' }, { s: 'store' }]);
    expect(await sets(indexDb())).toEqual([{ s: 'index' }]);
  });

  test('crawled and extracted pages are written to the index database and found by search', async () => {
    const crawled = await data('/crawl', { url: `${site.origin}/docs-site/guides/`, max_depth: 1, limit: 5 });
    expect(crawled.status).toBe(200);
    expect(crawled.body.results.length).toBeGreaterThan(1);
    const extracted = await data('/extract', { urls: [`${site.origin}/docs-site/guides/authentication.html`] });
    expect(extracted.status).toBe(200);

    const wanted = `${site.origin}/docs-site/guides/authentication.html`;
    let urls: string[] = [];
    for (const deadline = Date.now() + 15_000; !urls.includes(wanted) && Date.now() < deadline;) {
      const search = await data('/search', { query: 'authenticated bearer token rotated revoked', max_results: 5 });
      expect(search.status).toBe(200);
      urls = (search.body.results as { url: string }[]).map((result) => result.url);
      if (!urls.includes(wanted)) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(urls).toContain(wanted);
    const indexed = await indexDb().query<{ n: string }>('SELECT count(*) AS n FROM documents');
    expect(Number(indexed.rows[0]!.n)).toBeGreaterThan(1);
  }, 60_000);

  test('the request log (index database) names each call’s key (main database)', async () => {
    await app.app.get(RequestLogWriter).flush();
    const page = await call(app.url, 'GET', `/orgs/${owner.orgId}/requests?limit=100`, { token: owner.session });
    expect(page.status).toBe(200);
    const rows = page.body.requests as { operation: string; key_id: string; key_name: string; key_prefix: string }[];
    expect(new Set(rows.map((row) => row.operation))).toEqual(new Set(['crawl', 'extract', 'search']));
    for (const row of rows) {
      expect(row).toMatchObject({ key_id: key.keyId, key_name: 'load', key_prefix: expect.stringMatching(/^sk_/) });
    }
  });

  test('feedback on a search is kept in the index database, next to the result set it judges', async () => {
    const search = await data('/search', { query: 'bearer token authentication', max_results: 3 });
    expect(search.status).toBe(200);
    const ids = (search.body.results as { id: string }[]).map((result) => result.id);
    expect(ids.length).toBeGreaterThan(0);
    const feedback = await data('/feedback', { request_id: search.body.request_id, used_ids: ids, agent_score: 1 });
    expect(feedback.status).toBe(200);
    expect(feedback.body).toMatchObject({ success: true, search_request_id: search.body.request_id, ignored_ids: [] });
    const kept = await indexDb().query('SELECT 1 FROM search_feedback WHERE org_id = $1', [owner.orgId]);
    expect(kept.rowCount).toBe(1);
  });

  test('the charges are events in the main database only; readiness checks both; the ledger verifies', async () => {
    const charged = await mainDb().query<{ n: string }>(
      "SELECT count(*) AS n FROM events WHERE event_type = 'CreditsCharged'",
    );
    expect(Number(charged.rows[0]!.n)).toBeGreaterThanOrEqual(4);
    const ready = await call(app.url, 'GET', '/readyz');
    expect(ready.body.checks.database).toBe('ok');

    const cli = await operatorCli(
      {
        DATABASE_URL: TEST_DATABASE_URL,
        INDEX_DATABASE_URL,
        DATABASE_SCHEMA: app.schema,
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: app.config.redisPrefix,
        LOG_LEVEL: 'error',
      },
      'ledger',
      'verify',
    );
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
  }, 60_000);
});
