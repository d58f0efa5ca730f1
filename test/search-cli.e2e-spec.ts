import { Writable } from 'node:stream';
import { runCli } from '../src/cli/run-cli.js';
import { LocalIndex } from '../src/search/index/local-index.js';
import { type DocsSites, startDocsSites } from './support/docs-sites.js';
import { TEST_DATABASE_URL, type TestDatabase, createTestDatabase } from './support/test-database.js';

function capture() {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

describe('npm run cli -- index <url|sitemap>', () => {
  let database: TestDatabase;
  let sites: DocsSites;
  let env: NodeJS.ProcessEnv;

  const cli = async (...argv: string[]) => {
    const stdout = capture();
    const stderr = capture();
    const code = await runCli(argv, env, { stdout: stdout.stream, stderr: stderr.stream });
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  };
  const count = async () =>
    Number((await database.db.query<{ n: string }>('SELECT count(*) AS n FROM documents')).rows[0]!.n);

  beforeAll(async () => {
    database = await createTestDatabase();
    sites = await startDocsSites();
    env = {
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: database.schema,
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'error',
    };
  }, 60_000);
  afterAll(async () => {
    await sites.stop();
    await database.drop();
  });

  test('one page: fetched, extracted and written to the index, searchable at once', async () => {
    const page = sites.docs(sites.site.origin, 'guides/rate-limits.html');
    const result = await cli('index', page);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(
      new RegExp(`^indexed 1 of 1 page\\(s\\) from page ${page.replace(/[.?]/g, '\\$&')} in`),
    );
    expect(await count()).toBe(1);
    const { rows } = await database.db.query<{ title: string; content: string }>(
      'SELECT title, content FROM documents',
    );
    expect(rows[0]!.title).toMatch(/Rate limits/);
    const index = new LocalIndex(database.db);
    const ranked = await index.rank(await index.analyze('rate limits'), { limit: 5 });
    expect(ranked.documents.map((d) => d.url)).toEqual([page]);
  });

  test('a sitemap index: every listed page (robots.txt respected), with a JSON report', async () => {
    const result = await cli(
      'index',
      sites.docs(sites.site.origin, 'sitemap-index.xml'),
      '--json',
      '--concurrency',
      '6',
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      kind: string;
      pages: number;
      indexed: number;
      failed: { url: string; error: string }[];
    };
    expect(report.kind).toBe('sitemap');
    expect(report.pages).toBe(30);
    expect(report.indexed + report.failed.length).toBe(report.pages);
    expect(report.indexed).toBeGreaterThan(20);
    for (const failure of report.failed) expect(failure.error).toEqual(expect.any(String));
    expect(await count()).toBeGreaterThan(20);
    // Statistics follow the writer's upserts (the page indexed before was written again, not added twice).
    const { rows } = await database.db.query<{ doc_count: string; n: string }>(
      'SELECT doc_count, (SELECT count(*) FROM documents) AS n FROM search_corpus_stats',
    );
    expect(Number(rows[0]!.doc_count)).toBe(Number(rows[0]!.n));
  });

  test('--limit caps the pages of a sitemap', async () => {
    const result = await cli('index', sites.docs(sites.site.origin, 'sitemap-docs.xml'), '--limit', '3', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).pages).toBe(3);
  });

  test('bad command lines exit 2 before connecting; a page that cannot be fetched exits 1', async () => {
    expect((await cli('index', 'ftp://example.com/x')).code).toBe(2);
    expect((await cli('index', sites.docs(sites.site.origin, 'a.html'), '--limit', '0')).code).toBe(2);
    const help = await cli('help', 'index');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('index <url|sitemap> [--limit <pages>] [--concurrency <n>] [--json]');
    const missing = await cli('index', sites.docs(sites.site.origin, 'no-such-page.html'));
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/indexed 0 of 1 page\(s\)/);
    expect(missing.stdout).toMatch(/failed: .*no-such-page\.html: /);
  });
});
